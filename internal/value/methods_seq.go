package value

// A read-only, index-addressable view over the eager collections (list,
// table, range) so collection methods iterate without materialising a table's
// rows or a range's integers up front.

// mMaxMaterialise bounds how many items a range may expand into.
const mMaxMaterialise = MaxItems

// mSeq views a list, table or range.
type mSeq struct {
	items []Value  // list
	tab   *Table   // table
	rows  mRowPool // table row allocator
	lo    int64    // range start
	rng   bool
	n     int
	// env reserves what materialising allocates (reserve.go); release
	// gives the reservations back when the method returns.
	env      Env
	releases []func()
}

// reserve reserves n bytes for the view's method until it returns.
func (s *mSeq) reserve(n int64) error {
	rel, err := Reserve(s.env, n)
	if err != nil {
		return err
	}
	if n >= ReserveMin {
		s.releases = append(s.releases, rel)
	}
	return nil
}

// release gives back every reservation the view's method made.
func (s *mSeq) release() {
	for _, r := range s.releases {
		r()
	}
	s.releases = nil
}

// rowBytes is about what one table row record costs (its header and
// value slots; the keys are the table's).
func (s *mSeq) rowBytes() int64 {
	return 48 + 2*slotBytes*int64(len(s.tab.Cols))
}

// mSeqOf builds a view; ok is false when v is not an eager collection.
// The view reserves nothing until its env is set (mColl sets it).
func mSeqOf(v Value) (s *mSeq, ok bool, err error) {
	switch x := v.(type) {
	case *List:
		return &mSeq{items: x.Items, n: len(x.Items)}, true, nil
	case *Table:
		return &mSeq{tab: x, rows: mRowPool{t: x}, n: x.N}, true, nil
	case Range:
		n, err := mRangeLen(x)
		if err != nil {
			return nil, true, err
		}
		return &mSeq{lo: x.Lo, rng: true, n: n}, true, nil
	}
	return nil, false, nil
}

// mRangeLen is the number of integers in r.
func mRangeLen(r Range) (int, error) {
	if r.Hi < r.Lo || (r.Hi == r.Lo && !r.Inclusive) {
		return 0, nil
	}
	n := uint64(r.Hi) - uint64(r.Lo) // exact: Hi >= Lo
	if r.Inclusive {
		n++
		if n == 0 {
			return 0, Errorf(CodeOverflow, "range %d..=%d is too long", r.Lo, r.Hi)
		}
	}
	if n > uint64(maxInt) {
		return 0, Errorf(CodeOverflow, "range is too long")
	}
	return int(n), nil
}

// at returns item i (a fresh row record for tables).
func (s *mSeq) at(i int) Value {
	switch {
	case s.tab != nil:
		return s.rows.row(i)
	case s.rng:
		return Int(s.lo + int64(i))
	}
	return s.items[i]
}

// call applies f to item i, letting a row-aware callable read a table row
// straight from its columns (see RowCallable).
func (s *mSeq) call(env Env, f Value, i int) (Value, error) {
	if s.tab != nil {
		if rc, ok := f.(RowCallable); ok {
			v, handled, err := rc.CallRow(env, s.tab, i)
			if handled || err != nil {
				return v, err
			}
		}
	}
	return env.Call(f, s.at(i))
}

// checkMaterialise fails when a range is too large to expand into a list.
func (s *mSeq) checkMaterialise() error {
	if s.rng && s.n > mMaxMaterialise {
		return Errorf(CodeTooLarge, "a range of %d items is too large to make into a list (at most %d)", s.n, mMaxMaterialise).
			WithHint("iterate it with for, or use a stream")
	}
	return nil
}

// all returns every item as a slice; lists are returned without copying, so
// the caller must not modify the result.
func (s *mSeq) all() ([]Value, error) {
	if s.tab == nil && !s.rng {
		return s.items, nil
	}
	if err := s.checkMaterialise(); err != nil {
		return nil, err
	}
	n := ListBytes(s.n, s.rng)
	if s.tab != nil {
		n += s.rowBytes() * int64(s.n)
	}
	if err := s.reserve(n); err != nil {
		return nil, err
	}
	out := make([]Value, s.n)
	for i := range out {
		out[i] = s.at(i)
	}
	return out, nil
}

// slice returns items [a, b): a table stays a table, the rest become lists.
func (s *mSeq) slice(a, b int) (Value, error) {
	switch {
	case s.tab != nil:
		t := &Table{Cols: s.tab.Cols, Data: make([][]Value, len(s.tab.Data)), N: b - a}
		for c, col := range s.tab.Data {
			t.Data[c] = col[a:b:b]
		}
		return t, nil
	case s.rng:
		if err := CheckItems(b - a); err != nil {
			return nil, err
		}
		if err := s.reserve(ListBytes(b-a, true)); err != nil {
			return nil, err
		}
		out := make([]Value, b-a)
		for i := range out {
			out[i] = Int(s.lo + int64(a+i))
		}
		return NewList(out), nil
	}
	return NewList(s.items[a:b:b]), nil
}

// pick returns the items at idx in that order: a table stays a table (built
// column by column), the rest become lists.
func (s *mSeq) pick(idx []int) (Value, error) {
	n := ListBytes(len(idx), s.rng)
	if s.tab != nil {
		n = slotBytes * int64(len(s.tab.Cols)) * int64(len(idx))
	}
	if err := s.reserve(n); err != nil {
		return nil, err
	}
	if s.tab != nil {
		return TableGather(s.tab, idx), nil
	}
	out := make([]Value, len(idx))
	for j, i := range idx {
		out[j] = s.at(i)
	}
	return NewList(out), nil
}

// mRowPool hands out row records of a table, allocating their storage in
// chunks that grow from a few rows (first, find) up to mRowChunk (full
// scans). Rows stay valid for as long as a caller holds them.
type mRowPool struct {
	t     *Table
	recs  []Record
	vals  []Value
	chunk int
}

const mRowChunk = 256

func (p *mRowPool) row(i int) *Record {
	nc := len(p.t.Cols)
	if len(p.recs) == 0 {
		p.chunk = min(max(2*p.chunk, 4), mRowChunk)
		p.recs = make([]Record, p.chunk)
		p.vals = make([]Value, p.chunk*nc)
	}
	r := &p.recs[0]
	p.recs = p.recs[1:]
	v := p.vals[:nc:nc]
	p.vals = p.vals[nc:]
	for c := range v {
		v[c] = p.t.Data[c][i]
	}
	r.keys, r.vals = p.t.Cols, v
	return r
}
