@testable import DatebookServer
import Testing

struct SiteAuthTests {
    @Test(arguments: [
        ("/", "/"), ("/events/ab12", "/events/ab12"), ("/?a=1&b=2", "/?a=1&b=2"),
        ("//evil.example/", "/"), ("/\\evil.example", "/"), ("/\t/evil.example", "/"), ("/\n/evil.example", "/"),
        ("https://evil.example/", "/"), ("evil.example", "/"), ("", "/"), ("/ /x", "/"), ("/événement", "/"),
    ])
    func aFormsNextIsAlwaysAPathOnThisServer(next: String, expected: String) {
        #expect(SiteAuth.localPath(next) == expected)
    }

    @Test func withoutATokenEveryoneIsAuthorizedAndWithOneOnlyTheBearerOrTheSession() {
        #expect(SiteAuth(token: nil, secureCookie: false).isAuthorized(WebRequest(method: "GET", path: "/")))
        let auth = SiteAuth(token: "t0ken", secureCookie: false)
        #expect(!auth.isAuthorized(WebRequest(method: "GET", path: "/")))
        #expect(auth.isAuthorized(WebRequest(method: "GET", path: "/", headers: ["Authorization": "Bearer t0ken"])))
        #expect(!auth.isAuthorized(WebRequest(method: "GET", path: "/", headers: ["Authorization": "Bearer t0ke"])))
        #expect(!auth.isAuthorized(WebRequest(method: "GET", path: "/", headers: ["Cookie": "datebook_session=t0ken"])))
        #expect(auth.isAuthorized(WebRequest(method: "GET", path: "/", headers: ["Cookie": "a=b; datebook_session=\(auth.session)"])))
        #expect(auth.csrf.count == 64 && auth.session != auth.csrf)
    }
}
