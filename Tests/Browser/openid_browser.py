#!/usr/bin/env python3
"""The console's sign-in through an OpenID Connect provider, in a real browser (issue 81):
Debian's chromium driven by Selenium, against `kioskpad verifier serve` with
`server.console.openid` pointed at a provider built on PyPI's pyop (openid_provider.py) over
https on loopback, with its certificate given as the console's ca_file and 127.0.0.1 listed
in allow_targets.

People at the provider: olga (group kioskpad-owners: owner), gus (building-b-security: a
guard limited to door group building-b), hal (reception: host), nora (marketing: no role).
It signs each in and sees what their role shows; nora refused with a page and an audit
record; signs out here and at the provider; rotates the provider's key and signs in again;
logs in with the local owner; refuses a forged callback; with --removal, removes olga at the
provider and measures how long her console session lasts after. Prints the sign-in times.
  openid_browser.py --binary PATH --store sqlite|postgres [--removal]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "LocalServers"))
from local_postgres import Postgres, free_port  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_browser import browser, run, site_files  # noqa: E402

from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import WebDriverWait

HERE = os.path.dirname(os.path.abspath(__file__))
PASSWORD = "correct horse battery staple"
CLIENT_SECRET = "kp-client-secret-for-the-browser-suite"
PEOPLE = {"olga": {"groups": ["kioskpad-owners"]}, "gus": {"groups": ["building-b-security", "staff"]},
          "hal": {"groups": ["reception"]}, "nora": {"groups": ["marketing"]}}
steps_passed = 0
sign_in_times = []


def step(text):
    global steps_passed
    steps_passed += 1
    print(f"openid: ok {steps_passed} - {text}", flush=True)


def read_line(process, prefix, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if line.startswith(prefix):
            return line.split()[-1]
    raise AssertionError(f"no '{prefix}' line")


def wait_for(driver, condition, what, timeout=15):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1, ignored_exceptions=(WebDriverException,)).until(lambda d: condition(d))
    except Exception:
        raise AssertionError(f"waited {timeout} s for {what}; at {driver.current_url}: {driver.find_element(By.TAG_NAME, 'body').text[:600]}")


class Provider:
    """openid_provider.py on a free port, over https with a certificate made here."""

    def __init__(self, directory, console_port):
        self.port = free_port()
        self.cert, self.key = os.path.join(directory, "op.crt"), os.path.join(directory, "op.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", self.key, "-out", self.cert, "-days", "2",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
        secret_file = os.path.join(directory, "op-client-secret")
        with open(secret_file, "w") as handle:
            handle.write(CLIENT_SECRET + "\n")
        people = os.path.join(directory, "people.json")
        with open(people, "w") as handle:
            json.dump(PEOPLE, handle)
        console = f"http://127.0.0.1:{console_port}/console"
        self.log = open(os.path.join(directory, "provider.log"), "w")
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "openid_provider.py"), "--port", str(self.port), "--client-id", "kioskpad-console",
             "--client-secret-file", secret_file, "--redirect-uri", console + "/login/callback", "--post-logout-uri", console + "/login",
             "--people", people, "--cert", self.cert, "--key", self.key], stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.issuer = read_line(self.process, "provider listening on ")
        self.secret_file = secret_file

    def control(self, path):
        import ssl
        context = ssl.create_default_context(cafile=self.cert)
        request = urllib.request.Request(self.issuer + path, data=b"", method="POST")
        with urllib.request.urlopen(request, timeout=10, context=context) as response:
            return json.loads(response.read())

    def kids(self):
        import ssl
        context = ssl.create_default_context(cafile=self.cert)
        with urllib.request.urlopen(self.issuer + "/jwks", timeout=10, context=context) as response:
            return [key["kid"] for key in json.loads(response.read())["keys"]]

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


class Site:
    def __init__(self, binary, store, directory, removal):
        self.binary, self.directory = binary, directory
        self.postgres = Postgres(directory) if store == "postgres" else None
        self.console_port = free_port()
        self.provider = Provider(directory, self.console_port)
        _, store_lines = site_files(binary, directory, self.postgres)
        self.config = os.path.join(directory, "verifier.yaml")
        # A one-minute provider session with --removal: the bound the docs state, measured.
        minutes = "      session_minutes: 1\n" if removal else ""
        with open(self.config, "w") as handle:
            handle.write(
                "server:\n  listen: 127.0.0.1:0\n  secret_file: secret\n" + store_lines
                + f"  console:\n    enabled: true\n    listen: 127.0.0.1:{self.console_port}\n    openid:\n"
                f"      issuer: {self.provider.issuer}\n      client_id: kioskpad-console\n"
                f"      client_secret_file: {self.provider.secret_file}\n"
                f"      redirect_url: http://127.0.0.1:{self.console_port}/console/login/callback\n"
                f"      ca_file: {self.provider.cert}\n      allow_targets: [127.0.0.1]\n      label: Sign in with the test provider\n"
                + minutes
                + "      roles:\n        - {claim: kioskpad-owners, role: owner}\n"
                "        - {claim: building-b-security, role: guard, door_groups: [building-b]}\n"
                "        - {claim: reception, role: host}\n")
        for arguments, stdin in [(["admin", "add", "alice", "--role", "owner"], PASSWORD + "\n"),
                                 (["door-group", "set", "building-b", "--doors", "back-door"], "")]:
            done = run(binary, "verifier", *arguments, "--config", self.config, stdin=stdin)
            assert done.returncode == 0, done.stderr
        self.log = open(os.path.join(directory, "serve.log"), "w")
        self.server = subprocess.Popen([binary, "verifier", "serve", "--config", self.config], stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.console = read_line(self.server, "console listening on ").rstrip("/")
        token = run(binary, "verifier", "token", "create", "audit-reader", "--scope", "read", "--role", "auditor", "--config", self.config)
        assert token.returncode == 0, token.stderr
        self.token = token.stdout.split()[-1]

    def audit_until(self, action, holds, seconds=15):
        """The audit's `action` records once `holds(records)` (on PostgreSQL the feed shows a record once it settled)."""
        deadline = time.time() + seconds
        while True:
            records = self.audit(action)
            if holds(records) or time.time() > deadline:
                return records
            time.sleep(0.5)

    def audit(self, action):
        request = urllib.request.Request(self.console.replace("/console", "") + "/api/v1/audit?after=0&limit=500",
                                         headers={"Authorization": "Bearer " + self.token})
        with urllib.request.urlopen(request, timeout=10) as response:
            records = [entry["record"] for entry in json.loads(response.read())["records"]]
        return [r for r in records if r.get("action") == action]

    def close(self):
        self.server.terminate()
        self.server.wait(timeout=30)
        self.log.close()
        self.provider.close()
        if self.postgres:
            self.postgres.stop()


def sign_in(driver, console, name, lands):
    """From the login page through the provider's form as `name`; returns the page's text."""
    driver.get(console + "/login")
    started = time.monotonic()
    driver.find_element(By.ID, "provider-sign-in").click()
    if driver.find_elements(By.ID, "op-user") or wait_for(driver, lambda d: d.find_elements(By.ID, "op-user") or "/console/" in d.current_url,
                                                          "the provider's form or the console"):
        if driver.find_elements(By.ID, "op-user"):
            driver.find_element(By.ID, "op-user").send_keys(name)
            form_shown = time.monotonic()
            driver.find_element(By.CSS_SELECTOR, "#op-login button").click()
            typed = time.monotonic() - form_shown
        else:
            typed = 0
    if lands is None:
        return started
    wait_for(driver, lambda d: d.current_url.endswith(lands) and d.find_elements(By.ID, "admin-name"), f"{name} on {lands}")
    sign_in_times.append(time.monotonic() - started - typed)
    assert driver.find_element(By.ID, "admin-name").text == name
    return driver.find_element(By.TAG_NAME, "nav").text


def sign_out(driver, at_provider=True):
    """Out of the console and, through its link, out at the provider (else the provider signs the same person in again)."""
    driver.find_element(By.CSS_SELECTOR, "form.logout button").click()
    wait_for(driver, lambda d: "Signed out" in d.title, "the signed-out page")
    if at_provider:
        driver.find_element(By.LINK_TEXT, "Sign out at the identity provider").click()
        wait_for(driver, lambda d: d.current_url.endswith("/console/login") and d.find_elements(By.ID, "provider-sign-in"), "the console's login")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--store", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--removal", action="store_true")
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix=f"kp-openid-{args.store}-")
    binary = os.path.abspath(args.binary)
    site = Site(binary, args.store, directory, args.removal)
    # The provider's certificate is the test's own; the console is plain http on loopback.
    driver = browser("--ignore-certificate-errors")
    console = site.console
    try:
        driver.get(console + "/login")
        assert driver.find_element(By.ID, "provider-sign-in").text == "Sign in with the test provider"
        assert driver.find_elements(By.CSS_SELECTOR, "#login input[name=password]")
        nav = sign_in(driver, console, "olga", "/console/doors")
        assert all(page in nav for page in ("Doors", "Users", "Site", "API")), nav
        roles = run(binary, "verifier", "admin", "list", "--config", site.config).stdout
        assert f"olga\towner\tprovider={site.provider.issuer}" in roles, roles
        step("olga signed in through the provider (PKCE, state, nonce; the ID token checked against its JWKS) as owner: every page")

        sign_out(driver)
        driver.get(console + "/doors")
        wait_for(driver, lambda d: d.current_url.endswith("/console/login"), "the login again: the session ended")
        driver.find_element(By.ID, "provider-sign-in").click()
        wait_for(driver, lambda d: d.find_elements(By.ID, "op-user"), "the provider asking who: signed out there too")
        step("signed out: the console's session ended, and the provider's after its sign-out link")

        nav = sign_in(driver, console, "gus", "/console/doors")
        assert "Users" not in nav and "API" not in nav and "Doors" in nav, nav
        assert f"gus\tguard\tdoor_groups=building-b\tprovider={site.provider.issuer}" in run(binary, "verifier", "admin", "list", "--config", site.config).stdout
        sign_out(driver)
        nav = sign_in(driver, console, "hal", "/console/visitors")
        assert "Doors" not in nav and "Users" not in nav, nav
        sign_out(driver)
        step("role mapping: gus (building-b-security) a guard limited to building-b, hal (reception) a host on the Visitors page")

        sign_in(driver, console, "nora", None)
        wait_for(driver, lambda d: "No role on this console" in d.title, "nora's refusal page")
        assert "signed you in as nora" in driver.find_element(By.TAG_NAME, "main").text
        driver.find_element(By.LINK_TEXT, "Sign out at the identity provider").click()
        wait_for(driver, lambda d: d.current_url.endswith("/console/login"), "the login after nora's sign-out at the provider")
        driver.get(console + "/doors")
        wait_for(driver, lambda d: d.current_url.endswith("/console/login"), "no session for nora")
        refused = [r for r in site.audit_until("console_login", lambda rs: any(r.get("admin") == "nora" for r in rs)) if r.get("admin") == "nora"]
        assert refused and refused[-1]["result"] == "no role mapped" and "groups" in refused[-1]["reason"], refused
        assert "nora" not in run(binary, "verifier", "admin", "list", "--config", site.config).stdout
        step("nora (marketing, no mapped group) refused with a page saying why, audited as 'no role mapped', no account made")

        old = site.provider.kids()
        site.provider.control("/_rotate")
        new = site.provider.kids()
        assert old != new and len(new) == 1, (old, new)
        sign_in(driver, console, "olga", "/console/doors")
        sign_out(driver)
        step(f"the provider rotated its key ({old[0]} to {new[0]}); olga signed in again, the new key fetched by its id")

        driver.get(console + "/login")
        driver.find_element(By.NAME, "name").send_keys("alice")
        driver.find_element(By.NAME, "password").send_keys(PASSWORD)
        driver.find_element(By.CSS_SELECTOR, "#login button").click()
        wait_for(driver, lambda d: d.current_url.endswith("/console/doors"), "alice on the Doors page")
        local = [r for r in site.audit_until("console_login", lambda rs: any(r.get("admin") == "alice" for r in rs)) if r.get("admin") == "alice"]
        assert local[-1].get("method") == "local account (identity provider configured)", local
        driver.find_element(By.CSS_SELECTOR, "form.logout button").click()
        wait_for(driver, lambda d: d.current_url.endswith("/console/login"), "alice signed out")
        # A provider's account has no password here.
        driver.find_element(By.NAME, "name").send_keys("olga")
        driver.find_element(By.NAME, "password").send_keys("anything at all")
        driver.find_element(By.CSS_SELECTOR, "#login button").click()
        wait_for(driver, lambda d: "Wrong name, password or code" in d.page_source, "olga refused a password login")
        step("the local owner alice logged in with her password (audited as a local account); olga's account takes no password")

        driver.get(console + "/login/callback?code=forged&state=forged")
        wait_for(driver, lambda d: "Sign-in refused" in d.title, "the forged callback refused")
        step("a callback this browser did not begin was refused")

        if args.removal:
            sign_in(driver, console, "olga", "/console/doors")
            signed_in = time.monotonic()
            site.provider.control("/_remove?user=olga")
            while True:
                driver.get(console + "/doors")
                if driver.current_url.endswith("/console/login"):
                    break
                assert time.monotonic() - signed_in < 90, "olga's session outlived its minute"
                time.sleep(2)
            lasted = time.monotonic() - signed_in
            driver.find_element(By.ID, "provider-sign-in").click()
            wait_for(driver, lambda d: d.find_elements(By.ID, "op-refused") or d.find_elements(By.ID, "op-user"), "the provider's refusal")
            assert driver.find_elements(By.ID, "op-refused"), driver.page_source[:400]
            step(f"olga removed at the provider: her console session ended {lasted:.0f} s after sign-in (session_minutes: 1), and she could not sign in again")

        site.log.flush()
        with open(os.path.join(directory, "serve.log")) as handle:
            logged = handle.read()
        assert CLIENT_SECRET not in logged and PASSWORD not in logged and "code=" not in logged
        step("no client secret, password or code in the verifier's log")
    finally:
        driver.quit()
        site.close()
    times = sorted(sign_in_times)
    print(f"openid: sign-in times (click to the console page, the provider's form excluded) over {len(times)}: "
          f"median {statistics.median(times) * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms", flush=True)
    print(f"openid: {steps_passed} passed, 0 failed ({args.store})", flush=True)


if __name__ == "__main__":
    main()
