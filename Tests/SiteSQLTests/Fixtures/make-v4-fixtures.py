#!/usr/bin/env python3
"""Makes the schema version 4 databases the upgrade tests start from, as the released
kioskpad made them: the migration statements of commit 384d983 (before issue 44 wrote the
site's SQL once), run in order, then one row in every table.

    python3 make-v4-fixtures.py POSTGRES_PORT   # needs a PostgreSQL on 127.0.0.1, user postgres

Writes v4-sqlite.sql (sqlite3's iterdump) and v4-postgres.sql (pg_dump, plain). Run again
only to make them anew; the tests read the files."""
import os, re, sqlite3, subprocess, sys

RELEASE = "384d983"
HERE = os.path.dirname(os.path.abspath(__file__))
HASH = "$pbkdf2-sha256$i=75000$RXpcpu5tyMBIf6cWSoa2eA$5H9HMrsr2xEBJwjjGIdpbfqlPEOLUsgHHCw/zGRkCS0"
ROWS = [
    f"INSERT INTO kioskpad_users (name, kind, hash, lookup_tag, lookup_key_id) VALUES ('alice', 'pin', '{HASH}', NULL, NULL)",
    f"INSERT INTO kioskpad_users (name, kind, hash) VALUES ('bob', 'card', '{HASH}')",
    "INSERT INTO kioskpad_schedules (name, spec) VALUES ('days', 'mon-fri 08:00-18:00')",
    "INSERT INTO kioskpad_access (user_name, rule, schedule) VALUES ('alice', 'schedule=days', 'days')",
    f"INSERT INTO kioskpad_codes (user_name, hash, expires_at, door) VALUES ('alice', '{HASH}', 4102444800, 'front-door')",
    "INSERT INTO kioskpad_doors (terminal_id, secret) VALUES ('front-door', 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=')",
    "INSERT INTO kioskpad_events (id, terminal_id, type, at, seq, record) VALUES ('e1', 'front-door', 'start', 1764230000.5, 1, '{\"id\":\"e1\",\"type\":\"start\"}')",
    "INSERT INTO kioskpad_audit (instance, record) VALUES ('site-1', '{\"decision\":\"granted\",\"terminal_id\":\"front-door\",\"user\":\"alice\"}')",
    f"INSERT INTO kioskpad_admins (name, hash) VALUES ('root', '{HASH}')",
    "INSERT INTO kioskpad_console_sessions (token_hash, admin_name, csrf, created_at, expires_at, idle_until) VALUES ('tokenhash1', 'root', 'csrf1', 1764230000, 4102444800, 4102444800)",
    "INSERT INTO kioskpad_alert_acks (terminal_id, alert, admin_name, at) VALUES ('front-door', 'offline', 'root', 1764230000)",
]
LOCKOUT = {
    "sqlite": "INSERT INTO kioskpad_lockout (terminal_id, failures, streak, locked_until) VALUES ('front-door', '1764230000.5,1764230001.25', 2, 1764230300)",
    "postgres": "INSERT INTO kioskpad_lockout (terminal_id, failures, streak, locked_until) VALUES ('front-door', '{1764230000.5,1764230001.25}', 2, 1764230300)",
}


def released_steps(path):
    """(version, [statement]) of a released migrations file, as Swift's string literals hold them."""
    source = subprocess.check_output(["git", "-C", HERE, "show", f"{RELEASE}:{path}"], text=True)
    body = source[source.index("static let steps"):source.index("/// The newest schema version")]
    parts = re.split(r"\(\n\s+(\d+),\n", body)[1:]
    steps = []
    for version, text in zip(parts[0::2], parts[1::2]):
        text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
        statements = []
        for match in re.finditer(r'"""\n(.*?)\n([ ]*)"""|"((?:[^"\\]|\\.)*)"', text, re.S):
            if match.group(1) is not None:  # a multi-line literal: Swift strips the closing quotes' indentation
                indent = len(match.group(2))
                statements.append("\n".join(line[indent:] for line in match.group(1).split("\n")))
            else:
                statements.append(match.group(3))
        steps.append((int(version), statements))
    return steps


def sqlite_fixture():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE kioskpad_schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))")
    for version, statements in released_steps("Sources/Site/SiteSQLite/SQLiteMigrations.swift"):
        if version > 4:
            break
        for statement in statements:
            db.execute(statement)
        db.execute("INSERT INTO kioskpad_schema_migrations (version, applied_at) VALUES (?, '2026-11-20T08:00:00.000Z')", (version,))
    db.execute("INSERT INTO kioskpad_site (key, value) VALUES ('time_zone', 'Europe/Berlin')")
    for row in ROWS + [LOCKOUT["sqlite"]]:
        db.execute(row)
    db.commit()
    with open(os.path.join(HERE, "v4-sqlite.sql"), "w") as out:
        out.write("\n".join(db.iterdump()) + "\n")


def postgres_fixture(port):
    psql = ["psql", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", port, "-U", "postgres"]
    subprocess.run(psql + ["-c", "DROP DATABASE IF EXISTS kp_fixture", "-c", "CREATE DATABASE kp_fixture"], check=True)
    script = ["CREATE TABLE kioskpad_schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());"]
    for version, statements in released_steps("Sources/Site/SitePostgres/PostgresMigrations.swift"):
        if version > 4:
            break
        script += [statement + ";" for statement in statements]
        script.append(f"INSERT INTO kioskpad_schema_migrations (version, applied_at) VALUES ({version}, '2026-11-20T08:00:00Z');")
    script.append("INSERT INTO kioskpad_site (key, value) VALUES ('time_zone', 'Europe/Berlin');")
    script += [row + ";" for row in ROWS + [LOCKOUT["postgres"]]]
    subprocess.run(psql + ["-d", "kp_fixture"], input="\n".join(script), text=True, check=True)
    dump = subprocess.check_output(
        ["pg_dump", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "--no-owner", "--no-privileges", "kp_fixture"], text=True)
    # pg_dump 15.x writes \restrict lines with a random key (CVE-2025-8714); psql of the same
    # release reads them, older ones do not: they are left out.
    dump = "\n".join(line for line in dump.split("\n") if not line.startswith("\\restrict") and not line.startswith("\\unrestrict"))
    with open(os.path.join(HERE, "v4-postgres.sql"), "w") as out:
        out.write(dump)


sqlite_fixture()
postgres_fixture(sys.argv[1])
