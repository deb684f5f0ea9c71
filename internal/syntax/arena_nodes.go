package syntax

// Node constructors for the arena's slabs. Each copies its argument into a
// fresh slab slot field by field: a whole-struct copy into heap memory goes
// through the runtime's bulk write barrier while the GC is marking, which
// costs far more than the compiler's inline barriers for single fields.
// TestNodeConstructorsCopyAllFields fails if a node type gains a field
// that its constructor does not copy.

func (p *parser) newVar(v Var) *Var {
	n := next(p, &p.ar.vars)
	n.Name, n.Span = v.Name, v.Span
	return n
}

func (p *parser) newField(v Field) *Field {
	n := next(p, &p.ar.fields)
	n.X, n.Name, n.Optional, n.Span = v.X, v.Name, v.Optional, v.Span
	return n
}

func (p *parser) newMethodCall(v MethodCall) *MethodCall {
	n := next(p, &p.ar.methods)
	n.X, n.Name, n.Args, n.Optional, n.Trailing, n.Span = v.X, v.Name, v.Args, v.Optional, v.Trailing, v.Span
	return n
}

func (p *parser) newCall(v Call) *Call {
	n := next(p, &p.ar.calls)
	n.Fn, n.Args, n.Trailing, n.Span = v.Fn, v.Args, v.Trailing, v.Span
	return n
}

func (p *parser) newArg(v Arg) *Arg {
	n := next(p, &p.ar.args)
	n.Name, n.Value, n.Span = v.Name, v.Value, v.Span
	return n
}

func (p *parser) newCmd(v Cmd) *Cmd {
	n := next(p, &p.ar.cmds)
	n.Call, n.Span = v.Call, v.Span
	return n
}

func (p *parser) newCmdCall(v CmdCall) *CmdCall {
	n := next(p, &p.ar.cmdCalls)
	n.Env, n.Forced, n.Head, n.Args, n.Redirects, n.Background, n.Trailing, n.Span = v.Env, v.Forced, v.Head, v.Args, v.Redirects, v.Background, v.Trailing, v.Span
	return n
}

func (p *parser) newCmdArg(v CmdArg) *CmdArg {
	n := next(p, &p.ar.cmdArgs)
	n.Kind, n.Text, n.Name, n.Value, n.X, n.Span = v.Kind, v.Text, v.Name, v.Value, v.X, v.Span
	return n
}

func (p *parser) newExprStmt(v ExprStmt) *ExprStmt {
	n := next(p, &p.ar.exprSt)
	n.X, n.Span = v.X, v.Span
	return n
}

func (p *parser) newLetStmt(v LetStmt) *LetStmt {
	n := next(p, &p.ar.lets)
	n.Name, n.Type, n.Init, n.Mutable, n.Exported, n.Span = v.Name, v.Type, v.Init, v.Mutable, v.Exported, v.Span
	return n
}

func (p *parser) newAssignStmt(v AssignStmt) *AssignStmt {
	n := next(p, &p.ar.assigns)
	n.Target, n.Op, n.Value, n.Span = v.Target, v.Op, v.Value, v.Span
	return n
}

func (p *parser) newStrLit(v StrLit) *StrLit {
	n := next(p, &p.ar.strs)
	n.Value, n.Raw, n.Span = v.Value, v.Raw, v.Span
	return n
}

func (p *parser) newStrInterp(v StrInterp) *StrInterp {
	n := next(p, &p.ar.interps)
	n.Parts, n.Span = v.Parts, v.Span
	return n
}

func (p *parser) newIntLit(v IntLit) *IntLit {
	n := next(p, &p.ar.ints)
	n.Value, n.Span = v.Value, v.Span
	return n
}

func (p *parser) newBinary(v Binary) *Binary {
	n := next(p, &p.ar.binaries)
	n.Op, n.L, n.R, n.Span = v.Op, v.L, v.R, v.Span
	return n
}

func (p *parser) newBlock(v Block) *Block {
	n := next(p, &p.ar.blocks)
	n.Stmts, n.Span = v.Stmts, v.Span
	return n
}

func (p *parser) newLambda(v Lambda) *Lambda {
	n := next(p, &p.ar.lambdas)
	n.Params, n.Body, n.Implicit, n.Span = v.Params, v.Body, v.Implicit, v.Span
	return n
}

func (p *parser) newParam(v Param) *Param {
	n := next(p, &p.ar.params)
	n.Name, n.Type, n.Default, n.Span = v.Name, v.Type, v.Default, v.Span
	return n
}

func (p *parser) newRecordField(v RecordField) *RecordField {
	n := next(p, &p.ar.recFlds)
	n.Key, n.Value, n.Span = v.Key, v.Value, v.Span
	return n
}

func (p *parser) newRecord(v Record) *Record {
	n := next(p, &p.ar.records)
	n.Fields, n.Span = v.Fields, v.Span
	return n
}

func (p *parser) newMatchArm(v MatchArm) *MatchArm {
	n := next(p, &p.ar.arms)
	n.Patterns, n.Guard, n.Body, n.Span = v.Patterns, v.Guard, v.Body, v.Span
	return n
}

func (p *parser) newLitPat(v LitPat) *LitPat {
	n := next(p, &p.ar.litPats)
	n.Value, n.Span = v.Value, v.Span
	return n
}

func (p *parser) newBindPat(v BindPat) *BindPat {
	n := next(p, &p.ar.bindPats)
	n.Name, n.Span = v.Name, v.Span
	return n
}

func (p *parser) newList(v List) *List {
	n := next(p, &p.ar.lists)
	n.Elems, n.Span = v.Elems, v.Span
	return n
}

func (p *parser) newIf(v If) *If {
	n := next(p, &p.ar.ifs)
	n.Cond, n.Then, n.Else, n.Span = v.Cond, v.Then, v.Else, v.Span
	return n
}

func (p *parser) newTypeExpr(v TypeExpr) *TypeExpr {
	n := next(p, &p.ar.types)
	n.Name, n.Args, n.Optional, n.Span = v.Name, v.Args, v.Optional, v.Span
	return n
}

func (p *parser) newWith(v With) *With {
	n := next(p, &p.ar.withs)
	n.Entries, n.Body, n.Span = v.Entries, v.Body, v.Span
	return n
}

func (p *parser) newWithEntry(v WithEntry) *WithEntry {
	n := next(p, &p.ar.withEnts)
	n.Key, n.Value, n.Span = v.Key, v.Value, v.Span
	return n
}

func (p *parser) newMatch(v Match) *Match {
	n := next(p, &p.ar.matches)
	n.Subject, n.Arms, n.Span = v.Subject, v.Arms, v.Span
	return n
}

func (p *parser) newCatch(v Catch) *Catch {
	n := next(p, &p.ar.catches)
	n.X, n.Binder, n.Handler, n.Span = v.X, v.Binder, v.Handler, v.Span
	return n
}

func (p *parser) newTry(v Try) *Try {
	n := next(p, &p.ar.tries)
	n.Body, n.Binder, n.Handler, n.Span = v.Body, v.Binder, v.Handler, v.Span
	return n
}

func (p *parser) newFnDecl(v FnDecl) *FnDecl {
	n := next(p, &p.ar.fnDecls)
	n.Name, n.Params, n.Rest, n.Return, n.Body, n.Doc, n.Exported, n.Span = v.Name, v.Params, v.Rest, v.Return, v.Body, v.Doc, v.Exported, v.Span
	return n
}

func (p *parser) newFnStmt(v FnStmt) *FnStmt {
	n := next(p, &p.ar.fnStmts)
	n.Decl, n.Span = v.Decl, v.Span
	return n
}

func (p *parser) newWildcardPat(v WildcardPat) *WildcardPat {
	n := next(p, &p.ar.wildPats)
	n.Span = v.Span
	return n
}

func (p *parser) newTypePat(v TypePat) *TypePat {
	n := next(p, &p.ar.typePats)
	n.Type, n.Binder, n.Span = v.Type, v.Binder, v.Span
	return n
}

func (p *parser) newLangBlock(v LangBlock) *LangBlock {
	n := next(p, &p.ar.langs)
	n.Tool, n.Source, n.Span = v.Tool, v.Source, v.Span
	return n
}

func (p *parser) newDurationLit(v DurationLit) *DurationLit {
	n := next(p, &p.ar.durs)
	n.Nanos, n.Span = v.Nanos, v.Span
	return n
}

func (p *parser) newSizeLit(v SizeLit) *SizeLit {
	n := next(p, &p.ar.sizes)
	n.Bytes, n.Span = v.Bytes, v.Span
	return n
}

func (p *parser) newUnary(v Unary) *Unary {
	n := next(p, &p.ar.unaries)
	n.Op, n.X, n.Span = v.Op, v.X, v.Span
	return n
}

func (p *parser) newIndex(v Index) *Index {
	n := next(p, &p.ar.indexes)
	n.X, n.Index, n.Span = v.X, v.Index, v.Span
	return n
}

func (p *parser) newForStmt(v ForStmt) *ForStmt {
	n := next(p, &p.ar.fors)
	n.Var, n.Iter, n.Body, n.Span = v.Var, v.Iter, v.Body, v.Span
	return n
}

func (p *parser) newReturnStmt(v ReturnStmt) *ReturnStmt {
	n := next(p, &p.ar.returns)
	n.Value, n.Span = v.Value, v.Span
	return n
}

func (p *parser) newRange(v Range) *Range {
	n := next(p, &p.ar.ranges)
	n.Lo, n.Hi, n.Inclusive, n.Span = v.Lo, v.Hi, v.Inclusive, v.Span
	return n
}

func (p *parser) newBoolLit(v BoolLit) *BoolLit {
	n := next(p, &p.ar.bools)
	n.Value, n.Span = v.Value, v.Span
	return n
}

func (p *parser) newFloatLit(v FloatLit) *FloatLit {
	n := next(p, &p.ar.floats)
	n.Value, n.Span = v.Value, v.Span
	return n
}

func (p *parser) newNullLit(v NullLit) *NullLit {
	n := next(p, &p.ar.nulls)
	n.Span = v.Span
	return n
}

func (p *parser) newRedirect(v Redirect) *Redirect {
	n := next(p, &p.ar.redirs)
	n.Kind, n.Target, n.Span = v.Kind, v.Target, v.Span
	return n
}
