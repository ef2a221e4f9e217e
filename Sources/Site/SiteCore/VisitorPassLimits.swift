/// How far the site lets visitor passes go (`server.visitor_pass_*` in the config file): how
/// long one lasts, and how many may be live at once for one host and for the whole site, so
/// that no one issuer can fill the site with passes.
public struct VisitorPassLimits: Sendable, Equatable {
    /// `visitor_pass_max_days`: the longest window a pass may have.
    public var maxDays: Int
    /// `visitor_pass_max_live_per_host`: the most live passes (not revoked, with a use left,
    /// not ended) one host may have.
    public var maxLivePerHost: Int
    /// `visitor_pass_max_live`: the most live passes at the site.
    public var maxLive: Int

    public init(maxDays: Int = 90, maxLivePerHost: Int = 50, maxLive: Int = 5_000) {
        self.maxDays = maxDays
        self.maxLivePerHost = maxLivePerHost
        self.maxLive = maxLive
    }

    /// Why a new pass for `host` is refused when `hostLive` of the site's `siteLive` live
    /// passes are theirs; nil when it fits.
    public func problem(host: String, hostLive: Int, siteLive: Int) -> String? {
        if hostLive >= maxLivePerHost {
            return "host: '\(host)' hosts \(hostLive) live visitor passes, the most the site allows (server.visitor_pass_max_live_per_host: "
                + "\(maxLivePerHost)); revoke one or wait for one to end"
        }
        if siteLive >= maxLive {
            return "the site has \(siteLive) live visitor passes, the most it allows (server.visitor_pass_max_live: \(maxLive)); "
                + "revoke some or wait for them to end"
        }
        return nil
    }
}
