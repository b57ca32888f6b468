/// Trigger functions that find their own schema's tables whoever writes.
///
/// The functions the earlier migrations created name their tables and sequence without a schema
/// (`nextval('data_version')`, `INSERT INTO changed_events …`), so they resolved against the writer's
/// search path: a DBA's `UPDATE datebook.tasks …` in psql failed (no `data_version` on the path),
/// and with a second datebook schema first on the path a change was queued in that schema and the
/// late-change alert was missed. Each function now carries `SET search_path` to its own schema.
extension PostgresStore {
    /// Every function in the schema being migrated gets `SET search_path = <that schema>`. A later
    /// migration that creates a function must give it the same clause.
    static let functionSearchPathMigration = """
        DO $$
        DECLARE
            fn regprocedure;
        BEGIN
            FOR fn IN SELECT p.oid FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                            WHERE n.nspname = current_schema() LOOP
                EXECUTE format('ALTER FUNCTION %s SET search_path = %I', fn, current_schema());
            END LOOP;
        END $$;
        """
}
