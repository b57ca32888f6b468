import DatebookDelivery
import Foundation

/// Headless Chromium driven through the DevTools protocol over `--remote-debugging-pipe`: JSON
/// messages separated by NUL bytes, written to the browser's fd 3 and read from its fd 4, so no
/// websocket is needed. One page (tab), typed into and clicked as a user would (`Input.*` events at
/// the element's place on screen), waited on by its load events, never by time.
///
/// The browser runs with a profile and HOME of its own, in a process group of its own named to
/// the `Reaper`; `close()` (or deinit) stops it and removes the folder.
public final class Browser {
    public enum Failure: Error, CustomStringConvertible {
        case start(String), closed, protocolError(String), timeout(String)
        public var description: String {
            switch self {
            case .start(let why): "chromium did not start: \(why)"
            case .closed: "chromium closed the DevTools pipe"
            case .protocolError(let what): "DevTools: \(what)"
            case .timeout(let what): "chromium: no \(what) within the time allowed"
            }
        }
    }

    let home: String
    /// Chromium's TMPDIR, short (`NSTemporaryDirectory()/cr-XXXXXX`), removed with `home`.
    let sockets: String
    let pid: pid_t
    let toBrowser: Int32
    let fromBrowser: Int32
    var nextID = 1
    var pending: [UInt8] = []
    /// Events read while waiting for something else, oldest first.
    var events: [[String: Any]] = []
    var session = ""
    var closed = false

    /// Starts `chromium` and opens one page on about:blank.
    public init(chromium: String = "/usr/bin/chromium") throws {
        home = makeScratchFolder("chromium")
        var template = Array((NSTemporaryDirectory() + "cr-XXXXXX").utf8CString)
        sockets = template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) } } ?? home
        Reaper.watch(folder: sockets)
        var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
        guard pipe(&input) == 0, pipe(&output) == 0 else { throw Failure.start("pipe: errno \(errno)") }
        // Close-on-exec: only the dup2'd copies (fds 3 and 4) reach the browser.
        for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                         "--remote-debugging-pipe", "--user-data-dir=\(home)/profile", "about:blank"]
        // TMPDIR too: Chromium's singleton socket folder (org.chromium.Chromium.*) goes there, else
        // into /tmp for good. A short path of its own: the socket's path must fit in 108 bytes.
        let environment = ["HOME=\(home)", "PATH=/usr/bin:/bin", "XDG_CONFIG_HOME=\(home)/config", "XDG_CACHE_HOME=\(home)/cache",
                           "TMPDIR=\(sockets)", "LANG=C.UTF-8"]
        // Only the pipes' ends the browser uses, as fds 3 and 4 (`--remote-debugging-pipe`).
        let spawned = Result {
            try Spawn.start(chromium, arguments, descriptors: [
                (3, .copy(input[0])), (4, .copy(output[1])), (0, .null(write: false)), (1, .null(write: true)), (2, .null(write: true)),
            ], environment: environment)
        }
        Glibc.close(input[0])
        Glibc.close(output[1])
        let child: pid_t
        do {
            child = try spawned.get()
        } catch {
            Glibc.close(input[1])
            Glibc.close(output[0])
            removeScratchFolder(home)
            removeScratchFolder(sockets)
            throw Failure.start("\(error)")
        }
        pid = child
        toBrowser = input[1]
        fromBrowser = output[0]
        Reaper.watch(group: child)
        let target = try call("Target.createTarget", ["url": "about:blank"], session: nil)
        guard let targetID = target["targetId"] as? String else { throw Failure.protocolError("no targetId") }
        let attached = try call("Target.attachToTarget", ["targetId": targetID, "flatten": true], session: nil)
        guard let id = attached["sessionId"] as? String else { throw Failure.protocolError("no sessionId") }
        session = id
        _ = try call("Page.enable")
        _ = try call("Runtime.enable")
    }

    deinit { close() }

    /// Stops the browser and removes its profile.
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(toBrowser)
        Glibc.close(fromBrowser)
        Reaper.stop(group: pid)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        removeScratchFolder(home)
        removeScratchFolder(sockets)
    }

    // MARK: the protocol

    /// Sends a command to the page (or, with `session` nil, to the browser) and returns its result.
    @discardableResult
    public func call(_ method: String, _ parameters: [String: Any] = [:], session: String?? = .none, timeout: Double = 30) throws -> [String: Any] {
        let id = nextID
        nextID += 1
        var message: [String: Any] = ["id": id, "method": method, "params": parameters]
        if let target = session ?? self.session, !target.isEmpty { message["sessionId"] = target }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(toBrowser, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure.closed }
            offset += written
        }
        let reply = try read(until: "the answer to \(method)", timeout: timeout) { ($0["id"] as? Int) == id }
        if let error = reply["error"] as? [String: Any] { throw Failure.protocolError("\(method): \(error["message"] ?? error)") }
        return reply["result"] as? [String: Any] ?? [:]
    }

    /// Waits for the page's event `method` (one already read counts) and returns its parameters.
    @discardableResult
    public func wait(for method: String, timeout: Double = 30) throws -> [String: Any] {
        if let index = events.firstIndex(where: { ($0["method"] as? String) == method }) {
            return events.remove(at: index)["params"] as? [String: Any] ?? [:]
        }
        return try read(until: method, timeout: timeout) { ($0["method"] as? String) == method }["params"] as? [String: Any] ?? [:]
    }

    /// Reads messages until one satisfies `wanted`; the events passed meanwhile are kept.
    func read(until what: String, timeout: Double, _ wanted: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            while let end = pending.firstIndex(of: 0) {
                let data = Data(pending[..<end])
                pending.removeFirst(end + 1)
                guard let message = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { continue }
                if wanted(message) { return message }
                if message["method"] != nil { events.append(message) }
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw Failure.timeout(what) }
            var poller = pollfd(fd: fromBrowser, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(min(left, 1) * 1000)) >= 0 else { throw Failure.closed }
            guard poller.revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fromBrowser, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure.closed }
            pending += buffer.prefix(count)
        }
    }

    // MARK: what a user does

    /// Loads `url` and waits until the page has loaded.
    public func open(_ url: String) throws {
        events.removeAll()
        try call("Page.navigate", ["url": url])
        try wait(for: "Page.loadEventFired")
    }

    /// The value of a JavaScript expression in the page (JSON-like: strings, numbers, arrays…).
    public func evaluate(_ expression: String) throws -> Any? {
        let result = try call("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] as? [String: Any] { throw Failure.protocolError("\(expression): \(exception)") }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// The page's DOM as HTML.
    public func html() throws -> String {
        try evaluate("document.documentElement.outerHTML") as? String ?? ""
    }

    /// Clicks the first element matching the CSS `selector` with the mouse, at its centre
    /// (scrolled into view first). With `navigates`, waits for the page it leads to.
    public func click(_ selector: String, navigates: Bool = true) throws {
        let quoted = try Self.jsString(selector)
        let box = try evaluate("""
            (() => { const e = document.querySelector(\(quoted)); if (!e) return null; e.scrollIntoView({block: 'center'});
                     const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()
            """) as? [Double]
        guard let box, box.count == 2 else { throw Failure.protocolError("nothing matches \(selector)") }
        events.removeAll()
        for type in ["mousePressed", "mouseReleased"] {
            try call("Input.dispatchMouseEvent", ["type": type, "x": box[0], "y": box[1], "button": "left", "clickCount": 1])
        }
        if navigates { try wait(for: "Page.loadEventFired") }
    }

    /// Replaces the text of the input or text area matching `selector` by typing `text` into it.
    public func type(_ selector: String, _ text: String) throws {
        let quoted = try Self.jsString(selector)
        let found = try evaluate("(() => { const e = document.querySelector(\(quoted)); if (!e) return false; e.focus(); e.select(); return true; })()") as? Bool
        guard found == true else { throw Failure.protocolError("nothing matches \(selector)") }
        if text.isEmpty {
            try call("Input.dispatchKeyEvent", ["type": "keyDown", "key": "Delete", "code": "Delete", "windowsVirtualKeyCode": 46])
            try call("Input.dispatchKeyEvent", ["type": "keyUp", "key": "Delete", "code": "Delete", "windowsVirtualKeyCode": 46])
        } else {
            try call("Input.insertText", ["text": text])
        }
    }

    /// The viewport `width` × `height` CSS pixels (a phone's below 600), light or dark.
    public func look(width: Int, height: Int, dark: Bool) throws {
        try call("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600])
        try call("Emulation.setEmulatedMedia", ["features": [["name": "prefers-color-scheme", "value": dark ? "dark" : "light"]]])
    }

    /// A PNG of the whole page (beyond the viewport) written to `path`; its size in bytes.
    @discardableResult
    public func screenshot(_ path: String) throws -> Int {
        let shot = try call("Page.captureScreenshot", ["format": "png", "captureBeyondViewport": true])
        guard let base64 = shot["data"] as? String, let data = Data(base64Encoded: base64) else { throw Failure.protocolError("no screenshot") }
        try data.write(to: URL(fileURLWithPath: path))
        return data.count
    }

    static func jsString(_ text: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: [text]), as: UTF8.self).dropFirst().dropLast().description
    }
}
