-- Who and where a connection is: the server's version, the role, the database, the
-- session's default timezone (the database's or the role's setting).
SELECT current_setting('server_version') AS server_version,
       current_user AS "user",
       current_database() AS database,
       current_setting('TimeZone') AS timezone
