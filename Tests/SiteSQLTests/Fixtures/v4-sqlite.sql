BEGIN TRANSACTION;
CREATE TABLE kioskpad_access (user_name TEXT PRIMARY KEY, rule TEXT NOT NULL, schedule TEXT);
INSERT INTO "kioskpad_access" VALUES('alice','schedule=days','days');
CREATE TABLE kioskpad_admins (
    name TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until REAL,
    totp_secret TEXT,
    totp_last_step INTEGER,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT INTO "kioskpad_admins" VALUES('root','$pbkdf2-sha256$i=75000$RXpcpu5tyMBIf6cWSoa2eA$5H9HMrsr2xEBJwjjGIdpbfqlPEOLUsgHHCw/zGRkCS0',0,NULL,NULL,NULL,'2026-11-27T11:32:15.601Z');
CREATE TABLE kioskpad_alert_acks (
    terminal_id TEXT NOT NULL,
    alert TEXT NOT NULL,
    admin_name TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (terminal_id, alert)
);
INSERT INTO "kioskpad_alert_acks" VALUES('front-door','offline','root',1764230000.0);
CREATE TABLE kioskpad_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    instance TEXT NOT NULL,
    record TEXT NOT NULL
);
INSERT INTO "kioskpad_audit" VALUES(1,'2026-11-27T11:32:15.601Z','site-1','{"decision":"granted","terminal_id":"front-door","user":"alice"}');
CREATE TABLE kioskpad_codes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_name TEXT NOT NULL,
    hash TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
, door TEXT);
INSERT INTO "kioskpad_codes" VALUES(1,'alice','$pbkdf2-sha256$i=75000$RXpcpu5tyMBIf6cWSoa2eA$5H9HMrsr2xEBJwjjGIdpbfqlPEOLUsgHHCw/zGRkCS0',4102444800,NULL,'front-door');
CREATE TABLE kioskpad_console_sessions (
    token_hash TEXT PRIMARY KEY,
    admin_name TEXT NOT NULL,
    csrf TEXT NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    idle_until REAL NOT NULL
);
INSERT INTO "kioskpad_console_sessions" VALUES('tokenhash1','root','csrf1',1764230000.0,4102444800.0,4102444800.0);
CREATE TABLE kioskpad_doors (
    terminal_id TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT INTO "kioskpad_doors" VALUES('front-door','whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=','2026-11-27T11:32:15.601Z');
CREATE TABLE kioskpad_events (
    id TEXT PRIMARY KEY,
    terminal_id TEXT NOT NULL,
    type TEXT NOT NULL,
    at REAL NOT NULL,
    seq INTEGER NOT NULL,
    record TEXT NOT NULL,
    received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT INTO "kioskpad_events" VALUES('e1','front-door','start',1764230000.5,1,'{"id":"e1","type":"start"}','2026-11-27T11:32:15.601Z');
CREATE TABLE kioskpad_lockout (
    terminal_id TEXT PRIMARY KEY,
    failures TEXT NOT NULL DEFAULT '',
    streak INTEGER NOT NULL DEFAULT 0,
    locked_until REAL
);
INSERT INTO "kioskpad_lockout" VALUES('front-door','1764230000.5,1764230001.25',2,1764230300.0);
CREATE TABLE kioskpad_replay (webhook_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
CREATE TABLE kioskpad_schedules (name TEXT PRIMARY KEY, spec TEXT NOT NULL);
INSERT INTO "kioskpad_schedules" VALUES('days','mon-fri 08:00-18:00');
CREATE TABLE kioskpad_schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
INSERT INTO "kioskpad_schema_migrations" VALUES(1,'2026-11-20T08:00:00.000Z');
INSERT INTO "kioskpad_schema_migrations" VALUES(2,'2026-11-20T08:00:00.000Z');
INSERT INTO "kioskpad_schema_migrations" VALUES(3,'2026-11-20T08:00:00.000Z');
INSERT INTO "kioskpad_schema_migrations" VALUES(4,'2026-11-20T08:00:00.000Z');
CREATE TABLE kioskpad_site (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO "kioskpad_site" VALUES('time_zone','Europe/Berlin');
CREATE TABLE kioskpad_users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('pin', 'duress', 'card')),
    hash TEXT NOT NULL,
    lookup_tag TEXT,
    lookup_key_id TEXT,
    totp_secret TEXT,
    totp_last_step INTEGER,
    enabled INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    CHECK (totp_secret IS NULL OR kind = 'pin')
);
INSERT INTO "kioskpad_users" VALUES(1,'alice','pin','$pbkdf2-sha256$i=75000$RXpcpu5tyMBIf6cWSoa2eA$5H9HMrsr2xEBJwjjGIdpbfqlPEOLUsgHHCw/zGRkCS0',NULL,NULL,NULL,NULL,1,'2026-11-27T11:32:15.600Z');
INSERT INTO "kioskpad_users" VALUES(2,'bob','card','$pbkdf2-sha256$i=75000$RXpcpu5tyMBIf6cWSoa2eA$5H9HMrsr2xEBJwjjGIdpbfqlPEOLUsgHHCw/zGRkCS0',NULL,NULL,NULL,NULL,1,'2026-11-27T11:32:15.600Z');
CREATE UNIQUE INDEX kioskpad_users_one_pin ON kioskpad_users (name) WHERE kind = 'pin';
CREATE UNIQUE INDEX kioskpad_users_one_duress ON kioskpad_users (name) WHERE kind = 'duress';
CREATE INDEX kioskpad_users_lookup_tag ON kioskpad_users (lookup_tag);
CREATE INDEX kioskpad_users_lookup_key_id ON kioskpad_users (lookup_key_id);
CREATE INDEX kioskpad_users_name ON kioskpad_users (name);
CREATE INDEX kioskpad_users_totp ON kioskpad_users (id) WHERE totp_secret IS NOT NULL;
CREATE INDEX kioskpad_codes_live ON kioskpad_codes (expires_at) WHERE used_at IS NULL;
CREATE INDEX kioskpad_replay_expires ON kioskpad_replay (expires_at);
CREATE INDEX kioskpad_access_schedule ON kioskpad_access (schedule);
CREATE INDEX kioskpad_events_door_time ON kioskpad_events (terminal_id, at);
CREATE INDEX kioskpad_events_time ON kioskpad_events (at);
CREATE INDEX kioskpad_console_sessions_admin ON kioskpad_console_sessions (admin_name);
CREATE INDEX kioskpad_audit_decisions ON kioskpad_audit (id) WHERE json_extract(record, '$.decision') IN ('granted', 'denied');
CREATE INDEX kioskpad_audit_decisions_door ON kioskpad_audit (json_extract(record, '$.terminal_id'), id)
WHERE json_extract(record, '$.decision') IN ('granted', 'denied');
CREATE INDEX kioskpad_audit_decisions_user ON kioskpad_audit (json_extract(record, '$.user'), id)
WHERE json_extract(record, '$.decision') IN ('granted', 'denied');
CREATE INDEX kioskpad_events_type_time ON kioskpad_events (type, at);
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('kioskpad_users',2);
INSERT INTO "sqlite_sequence" VALUES('kioskpad_codes',1);
INSERT INTO "sqlite_sequence" VALUES('kioskpad_audit',1);
COMMIT;
