import CLoader

/// `datebook doctor`'s check of the C libraries datebook opens on first use (the one list:
/// Sources/CLoader/include/datebook_libraries.h): each loads and has every function datebook
/// calls, or the line says what needs it and which Debian package to install. `make install`
/// prints these lines as its note on run-time dependencies (`doctor --libraries`).
enum DoctorLibraries {
    static func check() -> [Finding] {
        (0..<DATEBOOK_LIBRARY_COUNT.rawValue).map { raw in
            let library = datebook_library(rawValue: raw)
            let subject = "library " + String(cString: datebook_library_soname(library))
            guard datebook_library_available(library) != 0 else {
                return .warn(subject, String(cString: datebook_library_problem(library)))
            }
            return .ok(subject, "loads (Debian \(String(cString: datebook_library_package(library))), for \(String(cString: datebook_library_use(library))))")
        }
    }
}
