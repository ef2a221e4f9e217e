/// A users file with every way to a door, for the evaluator's tests and the stores' grid:
/// users' own rules of each kind, levels given directly and through user groups,
/// overlapping schedules, a disabled group, validity and holidays with and without a schedule.
public enum AccessLevelsSite {
    /// The file with `hash` for every user but ana, who has `anasHash`.
    public static func usersFile(hash: String, anasHash: String) -> String {
        """
        ana:\(anasHash)
        ben:\(hash)
        cleo:\(hash)
        dev:\(hash)
        eve:\(hash)
        finn:\(hash)
        gus:\(hash)
        hal:\(hash)
        ida:\(hash)
        @time_zone UTC
        @schedule office mon-fri 08:00-18:00
        @schedule evening daily 18:00-22:00
        @schedule eve-short daily 10:00-12:00
        @holiday 2026-12-24 schedule=eve-short Christmas Eve
        @holiday 2026-12-25 Christmas Day
        @door_group ground doors=front,side
        @level staff-hours door_groups=ground schedule=office
        @level cleaning doors=front,store schedule=evening
        @level workshop doors=shop
        @group staff levels=staff-hours
        @group cleaners levels=cleaning
        @group makers levels=workshop disabled
        @access ana groups=staff
        @access ben doors=front
        @access cleo groups=cleaners,staff
        @access dev doors=shop groups=staff
        @access eve groups=makers
        @access finn groups=staff valid_until=2026-12-01 responder
        @access gus levels=workshop groups=cleaners disabled
        @access hal schedule=evening valid_from=2026-12-03
        @access ida levels=workshop,cleaning staff

        """
    }
}
