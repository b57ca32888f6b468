import DatebookCore

/// Ready-made escape functions for `{{name}}` tags.
///
/// Escaping is a plain `@Sendable (String) -> String` so callers can bring their own
/// (a Markdown escaper, say) without conforming to anything.
public enum MustacheEscaper {
    /// Replaces `&`, `"`, `<` and `>` with entities, exactly as the Mustache spec requires.
    public static let html: @Sendable (String) -> String = { text in
        HTMLText.escape(text)
    }

    /// Leaves text alone: for plain-text templates such as e-mail bodies.
    public static let none: @Sendable (String) -> String = { text in text }
}
