package value

import (
	"math"
	"math/big"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
)

// The eager collection methods, shared by list, table and range. Row
// selections (where, sort, reverse, take, ...) keep a table a table; shape
// changes (map, enumerate, group, ...) produce lists.

// mCollKinds are the receivers of the collection methods.
var mCollKinds = []Kind{KList, KTable, KRange}

// mCollFn is a collection method body over a sequence view.
type mCollFn func(env Env, s *mSeq, recv Value, a Args) (Value, error)

// mColl adapts a collection body into a Method.
func mColl(fn mCollFn) Method {
	return func(env Env, recv Value, a Args) (Value, error) {
		s, ok, err := mSeqOf(recv)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, mTypeErr("expected a list, table or range, got %s", TypeName(recv))
		}
		s.env = env
		defer s.release()
		return fn(env, s, recv, a)
	}
}

func registerListMethods() {
	for _, k := range mCollKinds {
		mRegister(k, mColl(collLen), "len")
		mRegister(k, mColl(collCount), "count")
		mRegister(k, mColl(collIsEmpty), "is_empty")
		mRegister(k, mColl(collFirst), "first")
		mRegister(k, mColl(collLast), "last")
		mRegister(k, mColl(collCollect), "collect")
		mRegister(k, mColl(collMap), "map")
		mRegister(k, mColl(collReduce("reduce")), "reduce")
		mRegister(k, mColl(collReduce("fold")), "fold")
		mRegister(k, mColl(collWhere("where")), "where")
		mRegister(k, mColl(collWhere("filter")), "filter")
		mRegister(k, mColl(collEach), "each")
		mRegister(k, mColl(collAny), "any")
		mRegister(k, mColl(collAll), "all")
		mRegister(k, mColl(collFind), "find")
		mRegister(k, mColl(collFlatMap), "flat_map")
		mRegister(k, mColl(collSort), "sort")
		mRegister(k, mColl(collSortBy), "sort_by")
		mRegister(k, mColl(collReverse), "reverse")
		mRegister(k, mColl(collUniq), "uniq")
		mRegister(k, mColl(collSum), "sum")
		mRegister(k, mColl(collExtreme("min", -1)), "min")
		mRegister(k, mColl(collExtreme("max", +1)), "max")
		mRegister(k, mColl(collFlatten), "flatten")
		mRegister(k, mColl(collEnumerate), "enumerate")
		mRegister(k, mColl(collSkip), "skip")
		mRegister(k, mColl(collTake), "take")
		mRegister(k, mColl(collChunks), "chunks")
		mRegister(k, mColl(collZip), "zip")
		mRegister(k, mColl(collGroup("group")), "group")
		mRegister(k, mColl(collGroup("group_by")), "group_by")
		mRegister(k, mColl(collJoin), "join")
		mRegister(k, mColl(collContains), "contains")
		mRegister(k, mColl(collTee), "tee")
	}
	addMethod(KList, "get", listGet)
}

func collLen(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mNoArgs("len", a); err != nil {
		return nil, err
	}
	return Int(s.n), nil
}

// collCount is len under its other name; given a predicate (which some
// pages of the documentation show) it teaches the form that counts matches.
func collCount(env Env, s *mSeq, recv Value, a Args) (Value, error) {
	if len(a.Pos) == 1 && len(a.Named) == 0 {
		return nil, mArgErr("count takes no arguments: it is the number of items").
			WithHint("count the items that match with .where(pred).len(), e.g. xs.where(.type == \"file\").len()")
	}
	if err := mNoArgs("count", a); err != nil {
		return nil, err
	}
	return Int(s.n), nil
}

func collIsEmpty(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mNoArgs("is_empty", a); err != nil {
		return nil, err
	}
	return Bool(s.n == 0), nil
}

// mEnds implements first and last: no argument gives one item or null, a
// count gives a collection.
func mEnds(name string, s *mSeq, a Args, fromEnd bool) (Value, error) {
	if err := mArity(name, a, 0, 1, ""); err != nil {
		return nil, err
	}
	if len(a.Pos) == 0 {
		if s.n == 0 {
			return Nil, nil
		}
		if fromEnd {
			return s.at(s.n - 1), nil
		}
		return s.at(0), nil
	}
	n, err := mCount(name, a.Pos[0])
	if err != nil {
		return nil, err
	}
	n = min(n, s.n)
	if fromEnd {
		return s.slice(s.n-n, s.n)
	}
	return s.slice(0, n)
}

func collFirst(_ Env, s *mSeq, _ Value, a Args) (Value, error) { return mEnds("first", s, a, false) }
func collLast(_ Env, s *mSeq, _ Value, a Args) (Value, error)  { return mEnds("last", s, a, true) }

func collCollect(_ Env, s *mSeq, recv Value, a Args) (Value, error) {
	if err := mNoArgs("collect", a); err != nil {
		return nil, err
	}
	if s.rng {
		return s.slice(0, s.n)
	}
	return recv, nil
}

func collMap(env Env, s *mSeq, _ Value, a Args) (Value, error) {
	f, err := mFunc("map", a)
	if err != nil {
		return nil, err
	}
	if err := s.checkMaterialise(); err != nil {
		return nil, err
	}
	if s.tab != nil {
		if col, ok := ProjectedField(f, s.tab); ok {
			c := s.tab.Data[col]
			return NewList(c[:s.n:s.n]), nil // values are immutable; share the column
		}
	}
	if err := s.reserve(ListBytes(s.n, false)); err != nil {
		return nil, err
	}
	out := make([]Value, s.n)
	for i := range out {
		if out[i], err = s.call(env, f, i); err != nil {
			return nil, err
		}
	}
	return NewList(out), nil
}

func collReduce(name string) mCollFn {
	return func(env Env, s *mSeq, _ Value, a Args) (Value, error) {
		if err := mArity(name, a, 2, 2, "an initial value and a function"); err != nil {
			return nil, err
		}
		acc, f := a.Pos[0], a.Pos[1]
		for i := 0; i < s.n; i++ {
			var err error
			if acc, err = env.Call(f, acc, s.at(i)); err != nil {
				return nil, err
			}
		}
		return acc, nil
	}
}

// mSelect returns the indexes of the items satisfying pred.
func mSelect(env Env, name string, s *mSeq, pred Value) ([]int, error) {
	var keep []int
	for i := 0; i < s.n; i++ {
		r, err := s.call(env, pred, i)
		if err != nil {
			return nil, err
		}
		ok, err := mCond(name, r)
		if err != nil {
			return nil, err
		}
		if ok {
			keep = append(keep, i)
		}
	}
	return keep, nil
}

func collWhere(name string) mCollFn {
	return func(env Env, s *mSeq, _ Value, a Args) (Value, error) {
		f, err := mFunc(name, a)
		if err != nil {
			return nil, err
		}
		keep, err := mSelect(env, name, s, f)
		if err != nil {
			return nil, err
		}
		if !s.rng && s.tab == nil {
			out := make([]Value, len(keep))
			for j, i := range keep {
				out[j] = s.items[i]
			}
			return NewList(out), nil
		}
		return s.pick(keep)
	}
}

func collEach(env Env, s *mSeq, _ Value, a Args) (Value, error) {
	f, err := mFunc("each", a)
	if err != nil {
		return nil, err
	}
	for i := 0; i < s.n; i++ {
		if err := CallForEffect(env, f, s.at(i)); err != nil {
			return nil, err
		}
	}
	return Nil, nil
}

// mFindIndex returns the index of the first item whose predicate result is
// want, or -1.
func mFindIndex(env Env, name string, s *mSeq, a Args, want bool) (int, error) {
	f, err := mFunc(name, a)
	if err != nil {
		return 0, err
	}
	for i := 0; i < s.n; i++ {
		r, err := s.call(env, f, i)
		if err != nil {
			return 0, err
		}
		ok, err := mCond(name, r)
		if err != nil {
			return 0, err
		}
		if ok == want {
			return i, nil
		}
	}
	return -1, nil
}

func collAny(env Env, s *mSeq, _ Value, a Args) (Value, error) {
	i, err := mFindIndex(env, "any", s, a, true)
	if err != nil {
		return nil, err
	}
	return Bool(i >= 0), nil
}

func collAll(env Env, s *mSeq, _ Value, a Args) (Value, error) {
	i, err := mFindIndex(env, "all", s, a, false)
	if err != nil {
		return nil, err
	}
	return Bool(i < 0), nil
}

func collFind(env Env, s *mSeq, _ Value, a Args) (Value, error) {
	i, err := mFindIndex(env, "find", s, a, true)
	if err != nil {
		return nil, err
	}
	if i < 0 {
		return Nil, nil
	}
	return s.at(i), nil
}

func collFlatMap(env Env, s *mSeq, _ Value, a Args) (Value, error) {
	f, err := mFunc("flat_map", a)
	if err != nil {
		return nil, err
	}
	var out []Value
	for i := 0; i < s.n; i++ {
		r, err := s.call(env, f, i)
		if err != nil {
			return nil, err
		}
		if out, err = mAppendAll(out, r, "flat_map function must return a list, table or range"); err != nil {
			return nil, err
		}
	}
	return mList(out), nil
}

// mAppendAll appends the items of collection v to out.
func mAppendAll(out []Value, v Value, what string) ([]Value, error) {
	inner, ok, err := mSeqOf(v)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, mTypeErr("%s, got %s", what, TypeName(v))
	}
	if err := CheckItems(len(out) + inner.n); err != nil {
		return nil, err
	}
	if !inner.rng && inner.tab == nil {
		return append(out, inner.items...), nil
	}
	for j := 0; j < inner.n; j++ {
		out = append(out, inner.at(j))
	}
	return out, nil
}

// mList wraps items, turning nil into an empty list.
func mList(items []Value) *List {
	if items == nil {
		items = []Value{}
	}
	return NewList(items)
}

// mKeys calls f once per item and returns the keys.
func mKeys(env Env, s *mSeq, f Value) ([]Value, error) {
	if err := s.checkMaterialise(); err != nil {
		return nil, err
	}
	if s.tab != nil {
		if col, ok := ProjectedField(f, s.tab); ok {
			return s.tab.Data[col], nil // read-only use
		}
	}
	if err := s.reserve(ListBytes(s.n, false)); err != nil {
		return nil, err
	}
	keys := make([]Value, s.n)
	for i := range keys {
		k, err := s.call(env, f, i)
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	return keys, nil
}

func mSortByKeys(s *mSeq, keys []Value) (Value, error) {
	perm, err := SortPermutation(keys)
	if err != nil {
		return nil, err
	}
	return s.pick(perm)
}

func collSort(env Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mArity("sort", a, 0, 1, ""); err != nil {
		return nil, err
	}
	if len(a.Pos) == 1 {
		return collSortBy(env, s, nil, a)
	}
	if s.rng {
		return s.slice(0, s.n) // already ascending
	}
	items, err := s.all()
	if err != nil {
		return nil, err
	}
	return mSortByKeys(s, items)
}

func collSortBy(env Env, s *mSeq, _ Value, a Args) (Value, error) {
	f, err := mFunc("sort_by", a)
	if err != nil {
		return nil, err
	}
	keys, err := mKeys(env, s, f)
	if err != nil {
		return nil, err
	}
	return mSortByKeys(s, keys)
}

func collReverse(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mNoArgs("reverse", a); err != nil {
		return nil, err
	}
	if err := s.checkMaterialise(); err != nil {
		return nil, err
	}
	if err := s.reserve(8 * int64(s.n)); err != nil {
		return nil, err
	}
	idx := make([]int, s.n)
	for i := range idx {
		idx[i] = s.n - 1 - i
	}
	return s.pick(idx)
}

func collUniq(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mNoArgs("uniq", a); err != nil {
		return nil, err
	}
	if s.rng {
		return s.slice(0, s.n) // already distinct
	}
	set := mNewValueSet()
	var keep []int
	for i := 0; i < s.n; i++ {
		if _, added := set.add(s.at(i)); added {
			keep = append(keep, i)
		}
	}
	if keep == nil {
		keep = []int{}
	}
	return s.pick(keep)
}

// mAggNoArgs rejects arguments to an aggregate, teaching the projection
// idiom.
func mAggNoArgs(name string, a Args) error {
	if len(a.Pos) > 0 || len(a.Named) > 0 {
		return mArgErr("%s takes no arguments", name).
			WithHint("project first, then aggregate: .map(f)." + name + "()")
	}
	return nil
}

func collSum(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mAggNoArgs("sum", a); err != nil {
		return nil, err
	}
	if s.rng {
		return mRangeSum(s.lo, s.n)
	}
	items, err := s.all()
	if err != nil {
		return nil, err
	}
	return mSum(items)
}

// mSum adds items left to right; empty is int 0.
func mSum(items []Value) (Value, error) {
	if len(items) == 0 {
		return Int(0), nil
	}
	if acc, ok, err := mSumInts(items); ok || err != nil {
		return acc, err
	}
	acc := items[0]
	for _, x := range items[1:] {
		var err error
		if acc, err = BinaryOp(syntax.OpAdd, acc, x); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// mSumInts is the all-int fast path; ok is false when some item is not an
// int.
func mSumInts(items []Value) (Value, bool, error) {
	var acc int64
	for _, x := range items {
		n, ok := x.(Int)
		if !ok {
			return nil, false, nil
		}
		s := acc + int64(n)
		if (s > acc) != (n > 0) {
			return nil, true, Errorf(CodeOverflow, "int overflow in sum")
		}
		acc = s
	}
	return Int(acc), true, nil
}

// mRangeSum is lo + (lo+1) + ... for n terms, checked for overflow.
func mRangeSum(lo int64, n int) (Value, error) {
	if n == 0 {
		return Int(0), nil
	}
	// n*lo + n*(n-1)/2
	bn := big.NewInt(int64(n))
	sum := new(big.Int).Mul(bn, big.NewInt(lo))
	tri := new(big.Int).Mul(bn, big.NewInt(int64(n)-1))
	sum.Add(sum, tri.Rsh(tri, 1))
	if !sum.IsInt64() {
		return nil, Errorf(CodeOverflow, "int overflow in sum")
	}
	return Int(sum.Int64()), nil
}

func collExtreme(name string, sign int) mCollFn {
	return func(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
		if err := mAggNoArgs(name, a); err != nil {
			return nil, err
		}
		if s.n == 0 {
			return Nil, nil
		}
		if s.rng {
			if sign < 0 {
				return s.at(0), nil
			}
			return s.at(s.n - 1), nil
		}
		items, err := s.all()
		if err != nil {
			return nil, err
		}
		i, err := mExtreme(items, sign)
		if err != nil {
			return nil, err
		}
		return items[i], nil
	}
}

func collFlatten(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mNoArgs("flatten", a); err != nil {
		return nil, err
	}
	var out []Value
	for i := 0; i < s.n; i++ {
		var err error
		if out, err = mAppendAll(out, s.at(i), "flatten needs every item to be a list, table or range"); err != nil {
			return nil, err
		}
	}
	return mList(out), nil
}

func collEnumerate(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mNoArgs("enumerate", a); err != nil {
		return nil, err
	}
	if err := s.checkMaterialise(); err != nil {
		return nil, err
	}
	// out's slot, a pair's two slots and its list header (and a boxed
	// index) per item.
	if err := s.reserve(int64(s.n) * (3*slotBytes + 24 + wordBytes)); err != nil {
		return nil, err
	}
	out := make([]Value, s.n)
	pairs := make([]Value, 2*s.n)
	lists := make([]List, s.n)
	for i := range out {
		p := pairs[2*i : 2*i+2 : 2*i+2]
		p[0], p[1] = Int(i), s.at(i)
		lists[i].Items = p
		out[i] = &lists[i]
	}
	return NewList(out), nil
}

func collSkip(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mArity("skip", a, 1, 1, "a count"); err != nil {
		return nil, err
	}
	n, err := mCount("skip", a.Pos[0])
	if err != nil {
		return nil, err
	}
	return s.slice(min(n, s.n), s.n)
}

func collTake(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mArity("take", a, 1, 1, "a count"); err != nil {
		return nil, err
	}
	n, err := mCount("take", a.Pos[0])
	if err != nil {
		return nil, err
	}
	return s.slice(0, min(n, s.n))
}

func collChunks(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mArity("chunks", a, 1, 1, "a chunk size"); err != nil {
		return nil, err
	}
	n, err := mCount("chunks", a.Pos[0])
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, mArgErr("chunks size must be positive, got 0")
	}
	items, err := s.all()
	if err != nil {
		return nil, err
	}
	out := make([]Value, 0, (len(items)+n-1)/n)
	for lo := 0; lo < len(items); lo += n {
		hi := min(lo+n, len(items))
		out = append(out, NewList(items[lo:hi:hi]))
	}
	return NewList(out), nil
}

func collZip(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mArity("zip", a, 1, 1, "another collection"); err != nil {
		return nil, err
	}
	other, ok, err := mSeqOf(a.Pos[0])
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, mTypeErr("zip expects a list, table or range, got %s", TypeName(a.Pos[0]))
	}
	n := min(s.n, other.n)
	if n > mMaxMaterialise {
		return nil, CheckItems(n)
	}
	// out's slot and a pair list (header and two slots) per item.
	if err := s.reserve(int64(n) * (3*slotBytes + 24 + 2*wordBytes)); err != nil {
		return nil, err
	}
	out := make([]Value, n)
	for i := range out {
		out[i] = NewList([]Value{s.at(i), other.at(i)})
	}
	return NewList(out), nil
}

// mGroupKeys is the record shape of one group.
var mGroupKeys = []string{"key", "values"}

func collGroup(name string) mCollFn {
	return func(env Env, s *mSeq, _ Value, a Args) (Value, error) {
		f, err := mFunc(name, a)
		if err != nil {
			return nil, err
		}
		keys, err := mKeys(env, s, f)
		if err != nil {
			return nil, err
		}
		set := mNewValueSet()
		var members [][]Value
		for i, k := range keys {
			g, added := set.add(k)
			if added {
				members = append(members, nil)
			}
			members[g] = append(members[g], s.at(i))
		}
		out := make([]Value, len(members))
		for g, m := range members {
			out[g] = &Record{keys: mGroupKeys, vals: []Value{set.vals[g], NewList(m)}}
		}
		return NewList(out), nil
	}
}

func collJoin(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mArity("join", a, 0, 1, ""); err != nil {
		return nil, err
	}
	sep := ""
	if len(a.Pos) == 1 {
		var err error
		if sep, err = mStr("join", "the separator", a.Pos[0]); err != nil {
			return nil, err
		}
	}
	var b strings.Builder
	for i := 0; i < s.n; i++ {
		x, ok := s.at(i).(Str)
		if !ok {
			return nil, mTypeErr("join needs str items, item %d is %s", i, TypeName(s.at(i))).
				WithHint("convert first: .map(x => \"{x}\").join(sep)")
		}
		if err := CheckStrLen(b.Len() + len(sep) + len(x)); err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(string(x))
	}
	return Str(b.String()), nil
}

func collContains(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mArity("contains", a, 1, 1, "an item"); err != nil {
		return nil, err
	}
	x := a.Pos[0]
	if s.rng {
		var n int64
		switch v := x.(type) {
		case Int:
			n = int64(v)
		case Float:
			f := float64(v)
			if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
				return Bool(false), nil
			}
			n = int64(f)
		default:
			return Bool(false), nil
		}
		return Bool(n >= s.lo && uint64(n)-uint64(s.lo) < uint64(s.n)), nil
	}
	for i := 0; i < s.n; i++ {
		if Equal(s.at(i), x) {
			return Bool(true), nil
		}
	}
	return Bool(false), nil
}

func listGet(_ Env, recv Value, a Args) (Value, error) {
	if err := mArity("get", a, 1, 2, "an index"); err != nil {
		return nil, err
	}
	items := recv.(*List).Items
	idx, ok := a.Pos[0].(Int)
	if !ok {
		return nil, mTypeErr("list get expects an int index, got %s", TypeName(a.Pos[0]))
	}
	var def Value = Nil
	if len(a.Pos) == 2 {
		def = a.Pos[1]
	}
	i := int64(idx)
	if i < 0 {
		i += int64(len(items))
	}
	if i < 0 || i >= int64(len(items)) {
		return def, nil
	}
	return items[i], nil
}

// collTee splits a finite collection into n independent copies (default
// 2). Each fork is a list; collection methods such as take and collect
// work on it as they would on a replayed stream.
func collTee(_ Env, s *mSeq, _ Value, a Args) (Value, error) {
	if err := mArity("tee", a, 0, 1, ""); err != nil {
		return nil, err
	}
	n := 2
	if len(a.Pos) == 1 {
		var err error
		if n, err = mCount("tee", a.Pos[0]); err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, mArgErr("tee needs a positive number of forks, got 0")
		}
		if n > 1<<16 {
			return nil, mArgErr("tee of %d forks is too many", n)
		}
	}
	items, err := s.all()
	if err != nil {
		return nil, err
	}
	out := make([]Value, n)
	for i := range out {
		out[i] = NewList(items[:len(items):len(items)])
	}
	return NewList(out), nil
}
