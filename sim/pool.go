package sim

// masterPool is one MasterClient's coro_io::client_pool to a single
// (non-HA) master. A call takes an idle connection, or dials a new one
// (refused: RefusedPoolCost), and gives it back when its answer came. When
// the master dies (SIGKILL, or toxiproxy disabling the link, which closes
// what it proxies) every idle connection is closed under the pool: the next
// call that takes one writes its request and reads "End of file" at once
// (RPC_FAIL), and the closed connection is dropped (client_pool.hpp
// collect_free_client skips has_closed clients). Only then does a call dial.
//
// Real 0.3.12.post1 (explore seed 2026, master refused 0.12 s before the
// warmup put): the put read EOF in 1 ms; at the next control-plane tick
// the task-poll thread (FetchTasks, TaskPollThreadMain) read EOF and the
// ping dialled (4.27 s, "Failed to ping master"). Both threads start
// together in EnsureStorageControlPlaneStarted (0.3.10.post1+) and tick
// every second, so the pool holds two connections once they ran; before
// 0.3.10.post1 the ping thread starts at connect, concurrently with the
// foreground's setup RPCs: again two.
type masterPool struct {
	// used: connections ("" foreground, "ping") that reached the master
	// since it last died.
	used map[string]bool
	// dead: closed connections still in the idle queue.
	dead int
	// taskTook: the task-poll thread took its dead connection already.
	taskTook bool
	// taskPoll: the client runs TaskPollThreadMain (0.3.10.post1+).
	taskPoll bool
	// turn counts calls: which open connection the next one takes.
	turn int
}

// poolIdle is how many connections a pool holds open (see masterPool).
const poolIdle = 2

func (w *World) newPool(taskPoll bool) *masterPool {
	p := &masterPool{used: map[string]bool{}, taskPoll: taskPoll}
	w.pools = append(w.pools, p)
	return p
}

// reached records that conn's call got through to the master.
func (p *masterPool) reached(conn string) {
	if p != nil {
		p.used[conn] = true
	}
}

// connKey names the connection a call travels on (for toxics that act per
// connection: netsim.Conn). client_pool hands out idle connections first
// in, first out, so once the pool holds two (the foreground's and the ping
// thread's) consecutive calls alternate between them: real 0.3.13.post1
// through a logging proxy sent a put's PutStart on one connection and its
// PutEnd on the other (REAL-FINDINGS §21).
func (p *masterPool) connKey(node, conn string) string {
	if p == nil {
		return node + "/" + conn
	}
	n := 1
	if p.used[""] && p.used["ping"] {
		n = poolIdle
	}
	p.turn++
	return node + poolConnNames[p.turn%n]
}

// poolConnNames name a pool's connections (connKey).
var poolConnNames = [poolIdle]string{"/0", "/1"}

// takeDead reports (and consumes) a closed idle connection for the next call.
func (p *masterPool) takeDead() bool {
	if p == nil || p.dead == 0 {
		return false
	}
	p.dead--
	return true
}

// taskTick is the task-poll thread's tick, in phase with the ping thread's:
// it takes a closed connection first, once per master death.
func (p *masterPool) taskTick() {
	if p != nil && p.taskPoll && !p.taskTook && p.dead > 0 {
		p.dead--
		p.taskTook = true
	}
}

// masterConnsClosed: the master's sockets are gone (process stopped or
// restarted, or its link refused); each pool's open connections are now
// closed ones (a second refuse closes nothing more).
func (w *World) masterConnsClosed() {
	for _, p := range w.pools {
		n := len(p.used)
		if p.taskPoll && p.used["ping"] {
			n = poolIdle // the ping thread and the task-poll thread
		}
		if n == 0 {
			continue
		}
		p.dead = min(p.dead+n, poolIdle)
		p.used = map[string]bool{}
		p.taskTook = false
	}
}
