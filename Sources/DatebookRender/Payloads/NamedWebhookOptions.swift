import DatebookDelivery

/// Where a chat webhook posts and the name it posts under: Discord and Mattermost take the same two.
public struct NamedWebhookOptions: Sendable, Equatable {
    public var url: Secret
    public var username: String?
    public init(url: Secret, username: String? = nil) {
        self.url = url
        self.username = username
    }
}
