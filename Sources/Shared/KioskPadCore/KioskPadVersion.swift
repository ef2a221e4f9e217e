/// This build's version: `kioskpad --version` prints it, the journal's `start` record and
/// `/healthz`'s body carry it, and `scripts/package-deb.sh` names the package by it. Raise it
/// with every release.
public enum KioskPadVersion {
    public static let version = "0.10.0"
}
