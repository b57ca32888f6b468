// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "datebook",
    products: [
        .executable(name: "datebook", targets: ["datebook"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CCmark",
            pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]
        ),
        .target(name: "DatebookCore"),
        .target(
            name: "DatebookTemplates",
            path: "templates",
            exclude: ["README.md"],
            resources: [
                .embedInCode("digest.txt.mustache"),
                .embedInCode("digest.md.mustache"),
                .embedInCode("digest.html.mustache"),
                .embedInCode("layout.html.mustache"),
                .embedInCode("calendar.html.mustache"),
            ]
        ),
        .target(name: "DatebookRender", dependencies: ["DatebookCore", "CCmark", "DatebookTemplates"]),
        .target(name: "DatebookStore", dependencies: ["DatebookCore", "CSQLite"]),
        .target(name: "DatebookCLI", dependencies: ["DatebookCore", "DatebookStore", "DatebookRender"]),
        .executableTarget(name: "datebook", dependencies: ["DatebookCLI"]),
        .testTarget(name: "DatebookCoreTests", dependencies: ["DatebookCore"]),
        .testTarget(name: "DatebookStoreTests", dependencies: ["DatebookStore"]),
        .testTarget(
            name: "DatebookRenderTests",
            dependencies: ["DatebookRender", "DatebookTemplates", "DatebookCore"],
            exclude: ["Snapshots"]
        ),
        .testTarget(
            name: "DatebookCLITests",
            dependencies: ["DatebookCLI", "DatebookStore"],
            exclude: ["Snapshots", "Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
