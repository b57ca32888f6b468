// swift-tools-version:6.0
import Foundation
import PackageDescription

// Release links with lld, packs the relative relocations (DT_RELR, glibc ≥ 2.36: the 1.8 MB
// relocation table becomes 33 kB, read at every start and resident in the daemon) and lays out
// first the functions that datebook's common paths run (scripts/symbol-order.txt, made by
// scripts/symbol-order.sh; names it no longer finds are skipped). docs/performance.md ("Linking").
let symbolOrder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("scripts/symbol-order.txt").path
let releaseLink: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                  "-Xlinker", "--symbol-ordering-file=" + symbolOrder, "-Xlinker", "--no-warn-symbol-ordering"],
                 .when(configuration: .release)),
]

let package = Package(
    name: "datebook",
    products: [
        .executable(name: "datebook", targets: ["datebook"]),
        .executable(name: "datebook-bench", targets: ["datebook-bench"]),
        .executable(name: "datebook-notify-wait", targets: ["datebook-notify-wait"]),
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
        // No pkgConfig: libical.pc also links libicalss and libicalvcal (and through them libdb),
        // which datebook never calls; the module map links libical alone, so start-up loads less.
        .systemLibrary(
            name: "CICal",
            providers: [.apt(["libical-dev", "tzdata"])]
        ),
        // libcurl, libpq, libmicrohttpd and libxml2, opened on first use instead of linked (the list:
        // Sources/CLoader/include/datebook_libraries.h), so no pkgConfig and no link line; their
        // headers come from libcurl4-openssl-dev, libpq-dev, libmicrohttpd-dev and libxml2-dev
        // (scripts/setup.sh). libxml2's sit in /usr/include/libxml2, which only CLoader's xml.c needs.
        .target(name: "CLoader", cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])]),
        .target(name: "DatebookCore"),
        .target(name: "DatebookICal", dependencies: ["CICal", "DatebookCore"]),
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
                .embedInCode("web-layout.html.mustache"),
                .embedInCode("web-agenda.html.mustache"),
                .embedInCode("web-task.html.mustache"),
                .embedInCode("web-calendar.html.mustache"),
                .embedInCode("web-event.html.mustache"),
                .embedInCode("web-edit.html.mustache"),
                .embedInCode("web-list.html.mustache"),
                .embedInCode("web-action.html.mustache"),
                .embedInCode("web.css.mustache"),
                .embedInCode("locales/en.json"),
                .embedInCode("locales/de.json"),
                .embedInCode("locales/ja.json"),
                .embedInCode("locales/fr.json"),
                .embedInCode("locales/es.json"),
            ]
        ),
        .target(name: "DatebookRender", dependencies: ["DatebookCore", "DatebookDelivery", "CCmark", "DatebookTemplates"]),
        .target(name: "DatebookDelivery", dependencies: ["DatebookCore", "CLoader"]),
        .target(name: "DatebookStore", dependencies: ["DatebookCore", "DatebookICal", "CSQLite", "CLoader"]),
        // iCalendar and planner JSON to and from the planner, and feed refresh (DESIGN.md "Interchange").
        .target(name: "DatebookInterchange", dependencies: ["DatebookCore", "DatebookICal", "DatebookStore"]),
        .target(name: "DatebookServer", dependencies: ["CLoader", "DatebookCore", "DatebookICal", "DatebookStore", "DatebookInterchange", "DatebookRender", "DatebookScheduler"]),
        .target(name: "DatebookSync", dependencies: ["CLoader", "DatebookCore", "DatebookICal", "DatebookStore", "DatebookInterchange", "DatebookDelivery"]),
        .target(name: "DatebookScheduler", dependencies: ["DatebookCore", "DatebookICal", "DatebookStore", "DatebookDelivery", "DatebookRender"]),
        // The daemon loop beside the scheduler: wake-ups, passes, feed and CalDAV scheduling (DESIGN.md "Shape").
        .target(name: "DatebookDaemon", dependencies: ["DatebookCore", "DatebookStore", "DatebookInterchange", "DatebookDelivery",
                                                       "DatebookScheduler", "DatebookSync"]),
        .target(
            name: "DatebookCLI",
            dependencies: ["CLoader", "DatebookCore", "DatebookStore", "DatebookInterchange", "DatebookDaemon", "DatebookRender", "DatebookDelivery", "DatebookScheduler", "DatebookServer", "DatebookSync"]
        ),
        .executableTarget(
            name: "datebook",
            dependencies: ["DatebookCLI"],
            linkerSettings: releaseLink
        ),
        // C, so that what waits for a notification's button stays small (docs/desktop.md); the
        // listener looks for it next to the datebook binary.
        .executableTarget(name: "datebook-notify-wait", linkerSettings: [
            // A C program: without the Swift start-up object (swiftrt.o) nothing pulls in the Swift
            // runtime, which would more than double what it keeps resident while it waits (and, static,
            // no libswiftCore.so is loaded in debug builds either).
            .unsafeFlags(["-nostartfiles", "-static-stdlib"]),
        ]),
        .executableTarget(name: "datebook-bench", dependencies: ["DatebookDelivery", "DatebookRender"], path: "bench/swift", linkerSettings: releaseLink),
        .testTarget(name: "DatebookCoreTests", dependencies: ["DatebookCore"], exclude: ["Fixtures"]),
        .testTarget(name: "DatebookStoreTests", dependencies: ["DatebookStore", "DatebookTestSupport"]),
        .testTarget(name: "DatebookSyncTests", dependencies: ["DatebookSync", "DatebookStore", "DatebookInterchange", "DatebookDelivery", "DatebookTestSupport"]),
        .testTarget(
            name: "DatebookSchedulerTests",
            dependencies: ["DatebookScheduler", "DatebookStore", "DatebookCore", "DatebookDelivery", "DatebookRender", "DatebookTestSupport"]
        ),
        .testTarget(name: "DatebookInterchangeTests", dependencies: ["DatebookInterchange", "DatebookStore", "DatebookICal", "DatebookCore",
                                                                     "DatebookTestSupport"]),
        .testTarget(name: "DatebookDaemonTests", dependencies: ["DatebookDaemon", "DatebookScheduler", "DatebookStore", "DatebookSync",
                                                                "DatebookTestSupport"]),
        .target(name: "DatebookTestSupport", dependencies: ["DatebookCore", "DatebookDelivery", "DatebookStore"], path: "Tests/DatebookTestSupport"),
        .testTarget(
            name: "DatebookICalTests",
            dependencies: ["DatebookICal", "DatebookTestSupport"],
            exclude: ["Fixtures", "Support"]
        ),
        .testTarget(
            name: "DatebookDeliveryTests",
            dependencies: ["DatebookDelivery", "DatebookCore", "DatebookTestSupport"],
            exclude: ["Support", "Snapshots"]
        ),
        .testTarget(
            name: "DatebookRenderTests",
            dependencies: ["DatebookRender", "DatebookTemplates", "DatebookCore", "DatebookDelivery", "DatebookTestSupport"],
            exclude: ["Snapshots", "Fixtures"]
        ),
        .testTarget(name: "DatebookServerTests", dependencies: ["DatebookServer", "DatebookCore", "DatebookStore", "DatebookRender", "DatebookScheduler", "DatebookTestSupport"], exclude: ["Snapshots"]),
        .testTarget(
            name: "DatebookCLITests",
            dependencies: ["DatebookCLI", "DatebookStore", "DatebookInterchange", "DatebookDaemon", "DatebookTestSupport"],
            exclude: ["Snapshots", "Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Each function in its own section in release builds, so the symbol order can place datebook's own
// hot functions one by one instead of whole files (the toolchain's libraries are built that way).
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release))]
}

// Fuzz targets (fuzz/, docs/fuzzing.md): declared only when DATEBOOK_FUZZ=1, so normal builds and
// tests never see them. `make fuzz` builds them with -sanitize=fuzzer,address in .build/fuzz.
if ProcessInfo.processInfo.environment["DATEBOOK_FUZZ"] == "1" {
    package.targets.append(.executableTarget(
        name: "datebook-fuzz",
        dependencies: ["DatebookCore", "DatebookICal", "DatebookStore", "DatebookInterchange", "DatebookRender", "DatebookScheduler", "DatebookSync"],
        path: "fuzz/Sources/datebook-fuzz"
    ))
    package.products.append(.executable(name: "datebook-fuzz", targets: ["datebook-fuzz"]))
}
