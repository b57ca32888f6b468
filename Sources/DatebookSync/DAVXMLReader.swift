import CLoader
import Foundation

/// Reads XML with libxml2's streaming reader (`xmlTextReader`, opened on first use: CLoader's xml.c)
/// into `DAVElement` trees. Namespaces are resolved by libxml2; a DOCTYPE is refused (no entity
/// declarations, so no entity expansion), nothing is fetched (`XML_PARSE_NONET`), and
/// `XML_PARSE_HUGE` stays off, so libxml2's own limits hold (one text node at most 10 MB,
/// elements nested at most 256 deep, entity amplification guards). The only door to libxml2.
///
/// Streaming: with a `streaming` handler, each child of the root element is handed over as soon
/// as it is closed and not kept, so a multistatus of 10,000 calendar resources never exists as
/// one tree (`DAVMultistatus(xml:base:)`).
final class DAVXMLReader {
    private let reader: OpaquePointer
    private let error: UnsafeMutablePointer<datebook_xml_error>

    /// The bytes must stay alive as long as the reader (libxml2 does not copy them).
    private init(_ bytes: UnsafeRawBufferPointer) throws {
        error = UnsafeMutablePointer<datebook_xml_error>.allocate(capacity: 1)
        error.initialize(to: datebook_xml_error())
        let options = Int32(DATEBOOK_XML_PARSE_NONET | DATEBOOK_XML_PARSE_NOERROR | DATEBOOK_XML_PARSE_NOWARNING)
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
            let reader = datebook_xml_reader_open(base, Int32(bytes.count), options, error)
        else {
            error.deallocate()
            let why = String(cString: datebook_library_problem(DATEBOOK_LIBRARY_XML2))
            throw DAVXMLError(line: 1, message: why.isEmpty ? "libxml2 could not start a reader" : why)
        }
        self.reader = reader
    }

    deinit {
        datebook_xml_reader_free(reader)
        error.deallocate()
    }

    /// The whole document's root; with `streaming`, the root without its children, each of which
    /// went to `streaming` instead.
    static func read(_ data: Data, streaming: ((DAVElement) throws -> Void)?) throws -> DAVElement {
        guard data.count < Int(Int32.max) else { throw DAVXMLError(line: 1, message: "document larger than 2 GB") }
        guard !data.isEmpty else { throw DAVXMLError(line: 1, message: "empty document") }
        return try data.withUnsafeBytes { bytes in try DAVXMLReader(bytes).build(streaming: streaming) }
    }

    private func fail(_ message: String) -> DAVXMLError {
        DAVXMLError(line: Int(datebook_xml_line(reader)), message: message)
    }

    /// libxml2's first error, if it reported one.
    private func reported() -> DAVXMLError? {
        guard error.pointee.count > 0 else { return nil }
        let message = withUnsafeBytes(of: error.pointee.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return DAVXMLError(line: Int(error.pointee.line), message: message)
    }

    /// Names and namespace URIs made so far, by libxml2's pointer: the reader interns them in its
    /// dictionary (the `Const` accessors), so each is made into a String once, not once per element
    /// (the bytes are still compared, so a pointer reused for another name is never taken for it).
    private var names: [UnsafePointer<CChar>: String] = [:]

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    private func name(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        if let known = names[pointer], known.withCString({ strcmp($0, pointer) }) == 0 { return known }
        let made = String(cString: pointer)
        names[pointer] = made
        return made
    }

    /// The element the reader stands on, with its attributes (namespace declarations left out).
    private func element() -> DAVElement {
        var element = DAVElement(namespace: name(datebook_xml_namespace_uri(reader)), name: name(datebook_xml_local_name(reader)))
        while datebook_xml_next_attribute(reader) == 1 {
            if datebook_xml_is_namespace_decl(reader) == 1 { continue }
            element.attributes[name(datebook_xml_local_name(reader))] = Self.string(datebook_xml_value(reader))
        }
        _ = datebook_xml_move_to_element(reader)
        return element
    }

    private func build(streaming: ((DAVElement) throws -> Void)?) throws -> DAVElement {
        var open: [DAVElement] = []
        var root: DAVElement?
        /// Closes the innermost open element: into its parent, to `streaming`, or as the root.
        func close() throws {
            guard let done = open.popLast() else { return }
            if open.isEmpty {
                root = done
            } else if open.count == 1, let streaming {
                try streaming(done)
            } else {
                open[open.count - 1].children.append(done)
            }
        }
        while true {
            let step = datebook_xml_read(reader)
            if var reported = reported() {
                // The memory reader says this of a document that ends inside an element.
                if reported.message == "Extra content at the end of the document", let inside = open.last {
                    reported.message = "<\(inside.name)> is not closed"
                }
                throw reported
            }
            guard step == 1 else {
                if step < 0 { throw fail("unreadable XML") }
                break
            }
            switch datebook_xml_node_type(reader) {
            case Int32(DATEBOOK_XML_ELEMENT):
                let empty = datebook_xml_is_empty_element(reader) == 1
                open.append(element())
                if empty { try close() }
            case Int32(DATEBOOK_XML_END_ELEMENT):
                try close()
            case Int32(DATEBOOK_XML_TEXT), Int32(DATEBOOK_XML_CDATA), Int32(DATEBOOK_XML_WHITESPACE),
                 Int32(DATEBOOK_XML_SIGNIFICANT_WHITESPACE):
                guard !open.isEmpty else { continue }
                open[open.count - 1].text += Self.string(datebook_xml_value(reader))
            case Int32(DATEBOOK_XML_DOCUMENT_TYPE):
                throw fail("DOCTYPE and other declarations are not accepted")
            case Int32(DATEBOOK_XML_ENTITY_REFERENCE):
                throw fail("entity references are not accepted")
            default:
                continue  // comments, processing instructions
            }
        }
        guard let root else { throw fail("no root element") }
        return root
    }
}
