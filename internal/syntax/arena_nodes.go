package syntax

// Node constructors for the arena's slabs. Each copies its argument into a
// fresh slab slot field by field: a whole-struct copy into heap memory goes
// through the runtime's bulk write barrier while the GC is marking, which
// costs far more than the compiler's inline barriers for single fields.
// Fields that are often zero are written only when set: the slot is fresh
// from a zeroed chunk, and skipping the store skips its write barrier.
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
	n.X, n.Name, n.Optional, n.Span, n.NameSpan = v.X, v.Name, v.Optional, v.Span, v.NameSpan
	if v.Args != nil {
		n.Args = v.Args
	}
	if v.Trailing != nil {
		n.Trailing = v.Trailing
	}
	return n
}

func (p *parser) newCall(v Call) *Call {
	n := next(p, &p.ar.calls)
	n.Fn, n.Span = v.Fn, v.Span
	if v.Args != nil {
		n.Args = v.Args
	}
	if v.Trailing != nil {
		n.Trailing = v.Trailing
	}
	return n
}

func (p *parser) newArg(v Arg) *Arg {
	n := next(p, &p.ar.args)
	n.Value, n.Span = v.Value, v.Span
	if v.Name != "" {
		n.Name = v.Name
	}
	return n
}

func (p *parser) newCmd(v Cmd) *Cmd {
	n := next(p, &p.ar.cmds)
	n.Call, n.Span = v.Call, v.Span
	return n
}

func (p *parser) newCmdCall(v CmdCall) *CmdCall {
	n := next(p, &p.ar.cmdCalls)
	n.Forced, n.Background, n.Span = v.Forced, v.Background, v.Span
	if v.Env != nil {
		n.Env = v.Env
	}
	if v.Head != nil {
		n.Head = v.Head
	}
	if v.Args != nil {
		n.Args = v.Args
	}
	if v.Redirects != nil {
		n.Redirects = v.Redirects
	}
	if v.Trailing != nil {
		n.Trailing = v.Trailing
	}
	return n
}

func (p *parser) newCmdArg(v CmdArg) *CmdArg {
	n := next(p, &p.ar.cmdArgs)
	n.Kind, n.Span = v.Kind, v.Span
	if v.Text != "" {
		n.Text = v.Text
	}
	if v.Name != "" {
		n.Name = v.Name
	}
	if v.Value != nil {
		n.Value = v.Value
	}
	if v.X != nil {
		n.X = v.X
	}
	return n
}

func (p *parser) newExprStmt(v ExprStmt) *ExprStmt {
	n := next(p, &p.ar.exprSt)
	n.X, n.Span = v.X, v.Span
	return n
}

func (p *parser) newLetStmt(v LetStmt) *LetStmt {
	n := next(p, &p.ar.lets)
	n.Name, n.Init, n.Mutable, n.Exported, n.Span = v.Name, v.Init, v.Mutable, v.Exported, v.Span
	if v.Type != nil {
		n.Type = v.Type
	}
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
	n.Span = v.Span
	if v.Stmts != nil {
		n.Stmts = v.Stmts
	}
	return n
}

func (p *parser) newLambda(v Lambda) *Lambda {
	n := next(p, &p.ar.lambdas)
	n.Body, n.Implicit, n.Span = v.Body, v.Implicit, v.Span
	if v.Params != nil {
		n.Params = v.Params
	}
	return n
}

func (p *parser) newParam(v Param) *Param {
	n := next(p, &p.ar.params)
	n.Name, n.Span = v.Name, v.Span
	if v.Type != nil {
		n.Type = v.Type
	}
	if v.Default != nil {
		n.Default = v.Default
	}
	return n
}

func (p *parser) newRecordField(v RecordField) *RecordField {
	n := next(p, &p.ar.recFlds)
	n.Key, n.Value, n.Span = v.Key, v.Value, v.Span
	return n
}

func (p *parser) newRecord(v Record) *Record {
	n := next(p, &p.ar.records)
	n.Span = v.Span
	if v.Fields != nil {
		n.Fields = v.Fields
	}
	return n
}

func (p *parser) newMatchArm(v MatchArm) *MatchArm {
	n := next(p, &p.ar.arms)
	n.Patterns, n.Body, n.Span = v.Patterns, v.Body, v.Span
	if v.Guard != nil {
		n.Guard = v.Guard
	}
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
	n.Span = v.Span
	if v.Elems != nil {
		n.Elems = v.Elems
	}
	return n
}

func (p *parser) newIf(v If) *If {
	n := next(p, &p.ar.ifs)
	n.Cond, n.Then, n.Span = v.Cond, v.Then, v.Span
	if v.Else != nil {
		n.Else = v.Else
	}
	return n
}

func (p *parser) newTypeExpr(v TypeExpr) *TypeExpr {
	n := next(p, &p.ar.types)
	n.Name, n.Optional, n.Span = v.Name, v.Optional, v.Span
	if v.Args != nil {
		n.Args = v.Args
	}
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
	n.X, n.Handler, n.Span = v.X, v.Handler, v.Span
	if v.Binder != "" {
		n.Binder = v.Binder
	}
	return n
}

func (p *parser) newTry(v Try) *Try {
	n := next(p, &p.ar.tries)
	n.Body, n.Handler, n.Span = v.Body, v.Handler, v.Span
	if v.Binder != "" {
		n.Binder = v.Binder
	}
	return n
}

func (p *parser) newFnDecl(v FnDecl) *FnDecl {
	n := next(p, &p.ar.fnDecls)
	n.Name, n.Body, n.Exported, n.Span = v.Name, v.Body, v.Exported, v.Span
	if v.Params != nil {
		n.Params = v.Params
	}
	if v.Rest != nil {
		n.Rest = v.Rest
	}
	if v.Return != nil {
		n.Return = v.Return
	}
	if v.Doc != "" {
		n.Doc = v.Doc
	}
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
	n.Type, n.Span = v.Type, v.Span
	if v.Binder != "" {
		n.Binder = v.Binder
	}
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
	n.Span = v.Span
	if v.Value != nil {
		n.Value = v.Value
	}
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
