/// The built-in templates, embedded in the binary from the files in `templates/`.
///
/// SwiftPM turns each `.embedInCode` resource into a byte array in `PackageResources`, so the
/// release binary renders every built-in even when copied alone to another machine.
public enum BuiltInTemplates {
    /// Template name → source, in the order `datebook templates` lists them.
    public static let all: [(name: String, source: String)] = [
        ("digest.txt.mustache", String(decoding: PackageResources.digest_txt_mustache, as: UTF8.self)),
        ("digest.md.mustache", String(decoding: PackageResources.digest_md_mustache, as: UTF8.self)),
        ("digest.html.mustache", String(decoding: PackageResources.digest_html_mustache, as: UTF8.self)),
        ("layout.html.mustache", String(decoding: PackageResources.layout_html_mustache, as: UTF8.self)),
        ("calendar.html.mustache", String(decoding: PackageResources.calendar_html_mustache, as: UTF8.self)),
        ("web-layout.html.mustache", String(decoding: PackageResources.web_layout_html_mustache, as: UTF8.self)),
        ("web-agenda.html.mustache", String(decoding: PackageResources.web_agenda_html_mustache, as: UTF8.self)),
        ("web-task.html.mustache", String(decoding: PackageResources.web_task_html_mustache, as: UTF8.self)),
        ("web-calendar.html.mustache", String(decoding: PackageResources.web_calendar_html_mustache, as: UTF8.self)),
        ("web-event.html.mustache", String(decoding: PackageResources.web_event_html_mustache, as: UTF8.self)),
        ("web-edit.html.mustache", String(decoding: PackageResources.web_edit_html_mustache, as: UTF8.self)),
        ("web-list.html.mustache", String(decoding: PackageResources.web_list_html_mustache, as: UTF8.self)),
        ("web-action.html.mustache", String(decoding: PackageResources.web_action_html_mustache, as: UTF8.self)),
        ("web.css.mustache", String(decoding: PackageResources.web_css_mustache, as: UTF8.self)),
    ]

    /// The source of the built-in called `name`, or nil.
    public static func source(named name: String) -> String? {
        all.first { $0.name == name }?.source
    }
}

/// The built-in message catalogues (`templates/locales/LANG.json`), embedded like the templates.
public enum BuiltInCatalogs {
    /// Language code → JSON text; English is the reference every other falls back to.
    public static let all: [(language: String, source: String)] = [
        ("en", String(decoding: PackageResources.en_json, as: UTF8.self)),
        ("de", String(decoding: PackageResources.de_json, as: UTF8.self)),
        ("ja", String(decoding: PackageResources.ja_json, as: UTF8.self)),
        ("fr", String(decoding: PackageResources.fr_json, as: UTF8.self)),
        ("es", String(decoding: PackageResources.es_json, as: UTF8.self)),
    ]

    /// The built-in catalogue of `language`, or nil.
    public static func source(language: String) -> String? {
        all.first { $0.language == language }?.source
    }
}
