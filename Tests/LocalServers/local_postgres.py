"""A PostgreSQL server of a test's own: initdb into a directory the test made, a free
loopback port, fsync off (the tests kill the site, never the database). Used by the browser
suite and the crash test."""
import os
import shutil
import socket
import subprocess
import sys
import uuid


class Postgres:
    """A PostgreSQL server for this run: initdb into a new directory, a free loopback port."""

    def __init__(self, directory):
        bins = sorted(p for p in (f"/usr/lib/postgresql/{v}/bin" for v in os.listdir("/usr/lib/postgresql")) if os.path.exists(p + "/initdb"))
        if not bins:
            sys.exit("no PostgreSQL server under /usr/lib/postgresql: apt-get install postgresql")
        self.bin = bins[-1]
        self.directory = directory
        self.port = free_port()
        self.password_file = os.path.join(directory, "pg-password")
        with open(self.password_file, "w") as handle:
            handle.write(uuid.uuid4().hex)
        self.as_root = os.getuid() == 0
        if self.as_root:
            shutil.chown(directory, "postgres", "postgres")
            shutil.chown(self.password_file, "postgres", "postgres")
        self.data = os.path.join(directory, "pg-data")
        self.tool("initdb", "-D", self.data, "-U", "kioskpad", "--pwfile", self.password_file, "--auth-local=trust",
                  "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C")
        self.tool("pg_ctl", "-D", self.data, "-l", os.path.join(directory, "pg-log"), "-w", "-t", "60",
                  "-o", f"-p {self.port} -k {directory} -c listen_addresses=127.0.0.1 -c fsync=off", "start")
        self.tool("createdb", "-h", directory, "-p", str(self.port), "-U", "kioskpad", "kioskpad")

    def tool(self, name, *arguments):
        command = [f"{self.bin}/{name}", *arguments]
        if self.as_root:
            command = ["/sbin/runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def stop(self):
        self.tool("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
