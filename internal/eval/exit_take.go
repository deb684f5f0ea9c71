package eval

// TakeExit reports a pending `exit` request and its status, and clears
// it: a kernel session outlives the `exit` of one exec, whose client is
// told the status and may end itself with it.
func (in *Interp) TakeExit() (int, bool) {
	release := in.holdAlways()
	defer release()
	if in.exitCode == nil {
		return 0, false
	}
	code := *in.exitCode
	in.exitCode = nil
	return code, true
}
