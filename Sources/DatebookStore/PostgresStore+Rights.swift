import Foundation

/// The rights a role needs to create datebook's schema, checked before anything is created.
extension PostgresStore {
    /// Throws `StoreError.noSchemaRights` when this role may not create what is missing: the
    /// schema itself (the CREATE right on the database) or its tables (CREATE on the schema).
    func checkCreateRights(schemaExists: Bool) throws {
        let rows = schemaExists
            ? try query("SELECT has_schema_privilege($1, 'CREATE'), current_user, current_database()", [schema])
            : try query("SELECT has_database_privilege(current_database(), 'CREATE'), current_user, current_database()")
        guard rows.count > 0, rows.text(0, 0) != "t" else { return }
        throw StoreError.noSchemaRights(store: location, schema: schema, role: rows.text(0, 1),
                                        database: schemaExists ? nil : rows.text(0, 2))
    }
}
