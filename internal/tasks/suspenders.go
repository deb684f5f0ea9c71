package tasks

// suspenderSet is a task's registered Suspenders. The first few live in
// the task itself: an exec registers one (its evaluation's pause) and a
// process group one each, so the common task allocates nothing for them;
// past those a map takes the rest, keeping add and remove O(1) however many
// processes a task starts.
type suspenderSet struct {
	next  int // the last key handed out; keys start at 1
	few   [suspendersInline]suspenderSlot
	more  map[int]Suspender
	count int
}

const suspendersInline = 4

// suspenderSlot is one inline entry; key 0 marks it free.
type suspenderSlot struct {
	key int
	s   Suspender
}

// add keeps s and returns the key that removes it.
func (ss *suspenderSet) add(s Suspender) int {
	ss.next++
	key := ss.next
	ss.count++
	for i := range ss.few {
		if ss.few[i].key == 0 {
			ss.few[i] = suspenderSlot{key: key, s: s}
			return key
		}
	}
	if ss.more == nil {
		ss.more = make(map[int]Suspender)
	}
	ss.more[key] = s
	return key
}

// remove forgets the Suspender key names; removing twice, or after reset,
// is a no-op.
func (ss *suspenderSet) remove(key int) {
	if key == 0 {
		return
	}
	for i := range ss.few {
		if ss.few[i].key == key {
			ss.few[i] = suspenderSlot{}
			ss.count--
			return
		}
	}
	if _, ok := ss.more[key]; ok {
		delete(ss.more, key)
		ss.count--
	}
}

func (ss *suspenderSet) len() int { return ss.count }

// each calls f with every Suspender kept, in no particular order.
func (ss *suspenderSet) each(f func(Suspender)) {
	for i := range ss.few {
		if ss.few[i].key != 0 {
			f(ss.few[i].s)
		}
	}
	for _, s := range ss.more {
		f(s)
	}
}

// reset forgets every Suspender; keys handed out stay unused.
func (ss *suspenderSet) reset() {
	ss.few = [suspendersInline]suspenderSlot{}
	ss.more = nil
	ss.count = 0
}
