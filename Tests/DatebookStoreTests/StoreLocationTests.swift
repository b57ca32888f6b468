import DatebookStore
import Testing

/// A store string reaches messages when it is wrong, so its password is hidden by the grammar of
/// its form, whatever characters it holds and whether or not it parses.
struct StoreLocationTests {
    @Test(arguments: [
        // URL form: the password in the user part, with each character class a URL parser trips on.
        ("postgresql://ann:se#cret@db.example.org/team", "postgresql://ann:****@db.example.org/team"),
        ("postgresql://ann:se/cret@db.example.org/team", "postgresql://ann:****@db.example.org/team"),
        ("postgresql://ann:se?cret@db.example.org/team", "postgresql://ann:****@db.example.org/team"),
        ("postgresql://ann:se@cret@db.example.org/team", "postgresql://ann:****@db.example.org/team"),
        ("postgresql://ann:se:cret@db.example.org/team", "postgresql://ann:****@db.example.org/team"),
        ("postgresql://ann:se cret@db.example.org/team", "postgresql://ann:****@db.example.org/team"),
        ("postgresql://ann:se'c\"ret@db.example.org/team", "postgresql://ann:****@db.example.org/team"),
        ("postgresql://ann:s#/?e@:c 'r\"et@[::1]:5432,db2:5433/team?sslmode=require",
         "postgresql://ann:****@[::1]:5432,db2:5433/team?sslmode=require"),
        // A port that is not a number (a password whose @ was forgotten, or a typo).
        ("postgresql://ann:secret@db.example.org:54x2/team", "postgresql://ann:****@db.example.org:****/team"),
        ("postgresql://ann:secret/team", "postgresql://ann:****/team"),
        // The query's password, up to the next parameter.
        ("postgres://ann@db/team?password=se#c/r?e@t:x&sslmode=require", "postgres://ann@db/team?password=****&sslmode=require"),
        ("postgres://ann@db/team?sslmode=require&password=a&b c'd\"", "postgres://ann@db/team?sslmode=require&password=****"),
        ("postgres://ann@db/team?sslpassword=key&schema=user", "postgres://ann@db/team?sslpassword=****&schema=user"),
        // Keyword form: bare and quoted values; an unterminated quote hides the rest.
        ("host=db password=se#c/r?e@t:x dbname=team", "host=db password=**** dbname=team"),
        ("host = db  password = 'se cr\\'et' dbname=team", "host = db  password = **** dbname=team"),
        ("host=db password='unterminated dbname=team", "host=db password=****"),
        ("host=db dbname='team", "host=db dbname=****"),
        // A file path is not a secret.
        ("/home/ann/datebook.sqlite3", "/home/ann/datebook.sqlite3"),
    ])
    func aStoreStringIsPrintedWithoutItsPasswordWhateverItHolds(_ text: String, _ printed: String) {
        #expect(StoreLocation.redacted(text) == printed)
    }

    @Test func theKeywordFormIsRecognised() {
        #expect(StoreLocation.isKeywordForm("host=db password=x"))
        #expect(StoreLocation.isKeywordForm(" dbname = team"))
        #expect(!StoreLocation.isKeywordForm("/home/ann/a=b.sqlite3"))
        #expect(!StoreLocation.isKeywordForm("datebook.sqlite3"))
        #expect(!StoreLocation.isKeywordForm("notes=old.sqlite3"))
    }
}
