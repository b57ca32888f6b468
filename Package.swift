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
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "DatebookCore"),
        .target(name: "DatebookDelivery", dependencies: ["CCurl"]),
        .target(name: "DatebookStore", dependencies: ["DatebookCore", "CSQLite"]),
        .target(name: "DatebookScheduler", dependencies: ["DatebookCore", "DatebookStore", "DatebookDelivery"]),
        .target(name: "DatebookCLI", dependencies: ["DatebookCore", "DatebookStore", "DatebookDelivery", "DatebookScheduler"]),
        .executableTarget(name: "datebook", dependencies: ["DatebookCLI"]),
        .testTarget(name: "DatebookCoreTests", dependencies: ["DatebookCore"]),
        .testTarget(name: "DatebookStoreTests", dependencies: ["DatebookStore"]),
        .testTarget(
            name: "DatebookSchedulerTests",
            dependencies: ["DatebookScheduler", "DatebookStore", "DatebookCore", "DatebookDelivery"],
            exclude: ["Support"]
        ),
        .testTarget(
            name: "DatebookDeliveryTests",
            dependencies: ["DatebookDelivery"],
            exclude: ["Support", "Snapshots"]
        ),
        .testTarget(
            name: "DatebookCLITests",
            dependencies: ["DatebookCLI", "DatebookStore"],
            exclude: ["Snapshots", "Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
