import KioskPadCore

#if canImport(Glibc)
    import Glibc
#endif

/// Jobs that may run now (first in, first out) and jobs due at a `CLOCK_MONOTONIC`
/// deadline, behind one mutex. Worker threads block in ``next()`` and the timer thread in
/// ``runTimers()`` with no timeout while nothing is due, so an idle board wakes no thread.
public final class JobBoard<Job>: @unchecked Sendable {
    // @unchecked: every stored property is read and written only with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let readyChanged = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let earliestChanged = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var ready: [Job] = []
    private var head = 0
    /// Sorted by deadline; equal deadlines keep their order of arrival.
    private var timed: [(deadline: Duration, job: Job)] = []

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(readyChanged, &attributes)
        pthread_cond_init(earliestChanged, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    /// The time on `CLOCK_MONOTONIC`, the clock deadlines are given in.
    public static var now: Duration {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    /// The number of jobs waiting to run now and at a deadline.
    public var counts: (ready: Int, timed: Int) {
        locked { (ready.count - head, timed.count) }
    }

    public func push(_ job: Job) {
        locked {
            ready.append(job)
            pthread_cond_signal(readyChanged)
        }
    }

    public func push(_ job: Job, at deadline: Duration) {
        locked {
            var low = 0
            var high = timed.count
            while low < high {
                let middle = (low + high) / 2
                if timed[middle].deadline <= deadline { low = middle + 1 } else { high = middle }
            }
            timed.insert((deadline, job), at: low)
            if low == 0 { pthread_cond_signal(earliestChanged) }
        }
    }

    /// Blocks until a job may run and returns it.
    public func next() -> Job {
        locked {
            while head == ready.count { pthread_cond_wait(readyChanged, mutex) }
            let job = ready[head]
            head += 1
            if head == ready.count {
                ready.removeAll(keepingCapacity: true)
                head = 0
            }
            return job
        }
    }

    /// The timer thread's loop (never returns): sleeps until the earliest deadline, then
    /// moves every due job to the ready queue.
    public func runTimers() -> Never {
        pthread_mutex_lock(mutex)
        while true {
            guard let earliest = timed.first?.deadline else {
                pthread_cond_wait(earliestChanged, mutex)
                continue
            }
            let now = Self.now
            if earliest > now {
                let (seconds, nanoseconds) = earliest.secondsAndNanoseconds
                var until = timespec(tv_sec: seconds, tv_nsec: nanoseconds)
                pthread_cond_timedwait(earliestChanged, mutex, &until)
                continue
            }
            let due = timed.prefix { $0.deadline <= now }.count
            ready.append(contentsOf: timed[..<due].map(\.job))
            timed.removeFirst(due)
            pthread_cond_broadcast(readyChanged)
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
