import DoorHomeAssistant
import DoorOfflineReplica

extension TerminalMetrics {
    /// Counts what the Home Assistant bridge notes: the broker connection's state, events
    /// dropped while it was down, inbound messages ignored (by reason).
    public func count(_ note: HomeAssistantBridge.Note) {
        switch note {
        case .connection(let state): mqttConnection(state.label)
        case .eventsDropped(let count): mqttEventsDropped(count)
        case .inboundIgnored(let reason): mqttMessageIgnored(reason)
        }
    }

    /// The metrics with the replica's age and version while `keeper` holds one.
    public convenience init(replica keeper: ReplicaKeeper) {
        self.init(replica: { () -> (age: Double?, version: Int64)? in
            guard let held = keeper.held else { return nil }
            return (keeper.age().map { Double($0.wholeSeconds) }, held.version)
        })
    }
}
