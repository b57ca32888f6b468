import DatebookScheduler

/// datebook-config(5): every key the config parser accepts (its key lists drive the page), each
/// with the text below. A key the parser accepts but `texts` lacks is a failing test.
enum ConfigManual {
    /// The sections of the file in page order: a title, the key path prefix and the parser's keys.
    static var sections: [(title: String, prefix: String, keys: [String])] {
        var sections: [(String, String, [String])] = [
            ("TOP-LEVEL KEYS", "", Config.topKeys),
            ("EVERY CHANNEL", "channels.NAME.", Config.commonChannelKeys),
        ]
        for type in Config.channelKeys.keys.sorted() {
            sections.append(("CHANNEL TYPE " + type.uppercased(), "channels.NAME(" + type + ").", Config.channelKeys[type] ?? []))
        }
        sections += [
            ("DIGESTS", "digests[].", Config.digestKeys),
            ("ALERTS", "alerts.", Config.alertKeys),
            ("FEEDS", "feeds[].", Config.feedKeys),
            ("SERVE", "serve.", Config.serveKeys),
            ("CALDAV", "caldav[].", Config.caldavKeys),
        ]
        return sections
    }

    /// The text for `prefix + key`; channel types fall back to the generic `channels.NAME(*).key`.
    static func text(_ prefix: String, _ key: String) -> String? {
        texts[prefix + key] ?? (prefix.hasPrefix("channels.NAME(") ? texts["channels.NAME(*)." + key] : nil)
    }

    static func page(version: String) -> String {
        var out = Roff.header("DATEBOOK-CONFIG", "5", "File Formats", version: version)
        out += ".SH NAME\ndatebook\\-config \\- the datebook configuration file\n"
        out += ".SH SYNOPSIS\n.I $XDG_CONFIG_HOME/datebook/config.json5\n"
        out += ".SH DESCRIPTION\n" + Roff.paragraphs("""
        The configuration is one JSON5 object (comments and trailing commas are fine). Every key is \
        optional; with no file datebook works as it is: a local store, output on stdout. Unknown keys \
        are errors, each naming the file, line and key path, with the nearest known key suggested. \
        --config or DATEBOOK_CONFIG names another file.

        SECRET values (webhook URLs, tokens, passwords) are a string, { env: "NAME" } (read from the \
        environment) or { file: "PATH" } (read from a file; ~ is the home directory). datebook never \
        prints them. Keep inline secrets out of files others can read (chmod 600).

        DURATION values are like 30s, 10m, 1h or 1h30m.
        """)
        for section in sections {
            out += ".SH " + Roff.escape(section.title) + "\n"
            for key in section.keys {
                out += Roff.tagged(Roff.bold(section.prefix + key), text(section.prefix, key) ?? "")
            }
        }
        out += ".SH EXAMPLE\n" + Roff.example(example)
        out += ".SH FILES\n" + Roff.tagged(Roff.italic("$XDG_CONFIG_HOME/datebook/config.json5"), "the default location (~/.config/datebook/config.json5)")
        out += ".SH SEE ALSO\n.BR datebook (1)\n"
        return out
    }

    static let example = [
        "{",
        "  timeZone: \"Europe/Berlin\",",
        "  channels: {",
        "    team: { type: \"slack\", url: { env: \"SLACK_WEBHOOK_URL\" } },",
        "    notes: { type: \"file\", path: \"~/notes/{{date}}.md\", format: \"markdown\" },",
        "  },",
        "  digests: [ { name: \"morning\", at: \"07:00\", days: \"mon-fri\", channels: [\"notes\"] } ],",
        "  alerts: { before: [\"1d\", \"1h\"], channels: [\"team\"], quietHours: \"22:00-07:00\" },",
        "}",
    ]

    static let texts: [String: String] = [
        "timeZone": "an IANA time zone name for times without an offset; default: the system zone (--tz wins)",
        "locale": "the locale of digests and alerts: en_US, de_DE, ja_JP, ... (dates, and words from the language's catalogue: English, German, Japanese)",
        "templates": "the folder of template overrides (default ~/.config/datebook/templates)",
        "channels": "an object of named channels; each name is what --channel, digests and alerts refer to",
        "digests": "a list of scheduled digests",
        "alerts": "when and where alerts go",
        "feeds": "a list of calendars subscribed by URL, refreshed by the scheduler",
        "caldav": "a list of CalDAV accounts synced both ways by 'datebook caldav sync'",
        "store": "the store: a SQLite file or a postgresql:// URL (a SECRET; --store and DATEBOOK_STORE win)",
        "channels.NAME.type": "slack, teams, discord, mattermost, ntfy, webhook, email, command, desktop or file",
        "channels.NAME.insecure": "true skips TLS certificate verification (warns every time)",
        "channels.NAME.caFile": "a PEM file of certificates to trust, for a private CA",
        "channels.NAME.timeout": "a DURATION one delivery may take (default 30s)",
        "channels.NAME(*).url": "the webhook or server URL (a SECRET)",
        "channels.NAME(*).username": "the name the message is posted under",
        "channels.NAME(ntfy).topic": "the topic to publish to (a SECRET)",
        "channels.NAME(ntfy).priority": "1 to 5",
        "channels.NAME(ntfy).tags": "a list of tags (emoji short codes)",
        "channels.NAME(ntfy).token": "an access token (a SECRET)",
        "channels.NAME(webhook).secret": "signs each body with HMAC-SHA256 (a SECRET)",
        "channels.NAME(email).smtp": "smtps://host:465 (implicit TLS) or smtp://host:587 (STARTTLS)",
        "channels.NAME(email).username": "the SMTP login",
        "channels.NAME(email).password": "the SMTP password (a SECRET)",
        "channels.NAME(email).from": "the From address, e.g. datebook <me@example.org>",
        "channels.NAME(email).to": "a list of recipient addresses",
        "channels.NAME(email).requireTLS": "false allows smtp:// without STARTTLS (default true)",
        "channels.NAME(command).argv": "the program and its arguments, never a shell; {{title}} {{body}} {{bodyMarkup}} {{start}} {{location}} {{url}} are filled in",
        "channels.NAME(desktop).urgency": "low, normal, critical or auto (by how soon the event starts)",
        "channels.NAME(desktop).expire": "a DURATION the notification stays",
        "channels.NAME(desktop).icon": "an icon-theme name or a file (default appointment-soon)",
        "channels.NAME(desktop).actions": "true adds Done and Snooze buttons",
        "channels.NAME(desktop).command": "a notify-send compatible program (default notify-send)",
        "channels.NAME(file).path": "the file to write, atomically; {{date}} is today in your zone",
        "channels.NAME(file).format": "text, markdown or html",
        "digests[].name": "the digest's name, as status and the ledger show it",
        "digests[].at": "the time of day, HH:MM",
        "digests[].days": "the days it is sent: mon-fri, sat,sun, ... (default every day)",
        "digests[].channels": "a list of channel names",
        "digests[].format": "text, markdown or html",
        "digests[].template": "a template name or path instead of the built-in one for the format",
        "alerts.before": "a list of default lead times (1d, 1h, 10m); an event's own --alert wins",
        "alerts.channels": "a list of channel names every alert goes to",
        "alerts.quietHours": "HH:MM-HH:MM; alerts due inside are deferred to its end, never dropped",
        "alerts.lateness": "a DURATION: an alert older than this when first seen is recorded as skipped",
        "alerts.cancelWhenDone": "true: no alerts for events whose tasks are all done",
        "alerts.clockJump": "a DURATION (default 1d): a pass this long after the last one warns that the clock may have jumped",
        "feeds[].name": "the feed's name",
        "feeds[].url": "an https:// or http:// URL or a path (a SECRET)",
        "feeds[].every": "a DURATION between refreshes (default 30m)",
        "serve": "the web server of datebook serve and datebook run --serve",
        "serve.listen": "HOST:PORT to listen on (default 127.0.0.1:8650); anything but loopback needs serve.token",
        "serve.baseURL": "the address people reach the server at (behind a proxy: its https URL); set, every alert carries signed Done, Snooze 1 h and Tomorrow 9:00 links under it",
        "serve.token": "the password of the web pages and the API's bearer token (a SECRET, 128 bits or more: openssl rand -base64 32); required off loopback",
        "serve.feedToken": "a SECRET in the feed's URL (/feeds/FEEDTOKEN/calendar.ics) so calendar apps can subscribe without a login",
        "serve.accessLog": "false: no line per request on stderr (default true; errors are logged either way)",
        "serve.trustedProxies": "reverse proxies' numeric addresses ([\"127.0.0.1\"]): a request from one counts failed logins under the client its Forwarded or X-Forwarded-For header names",
        "serve.workers": "the server's worker threads, 1 to 64 (default one per core, at least 2)",
        "caldav[].name": "the account's name, as 'datebook caldav sync NAME' takes it",
        "caldav[].url": "the server's https:// or http:// URL; discovery finds the calendars from there",
        "caldav[].username": "the login",
        "caldav[].password": "the password (a SECRET); read at each sync, never stored",
        "caldav[].calendars": "a list of calendar display names to sync (default: all)",
        "caldav[].every": "a DURATION between syncs by the daemon (default 15m)",
        "caldav[].caFile": "a PEM file of certificates to trust for this server (a private CA, a self-signed one); must be readable",
        "caldav[].timeout": "a DURATION a request may go without a byte from the server before it is given up (default 2m)",
    ]
}
