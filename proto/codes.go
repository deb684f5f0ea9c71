package proto

// JSON-RPC error codes. The standard ones come from JSON-RPC 2.0; the
// -320xx range is Shoal's. Numbers never change meaning.
const (
	CodeRPCParseError  = -32700 // malformed JSON frame
	CodeInvalidRequest = -32600 // not a JSON-RPC 2.0 request object
	CodeMethodNotFound = -32601 // unknown method
	CodeInvalidParams  = -32602 // wrong or missing params
	CodeInternalError  = -32603 // unexpected server failure

	CodeNotAttached            = -32000 // method requires session.attach
	CodeParseError             = -32001 // Shoal source did not parse
	CodeRaised                 = -32002 // evaluation raised a language error
	CodeUnknownRef             = -32004 // value or blob ref absent or unreadable
	CodeBadPathOrSlice         = -32005 // invalid projection, slice or format
	CodeLeashDenied            = -32010 // policy denied, or not the owner/approver
	CodeApprovalRequired       = -32011 // policy requires approval first
	CodeUnknownPlan            = -32012 // missing or expired plan ref
	CodeTaskControlUnavailable = -32020 // suspend/resume unsupported
	CodeUnknownTask            = -32021 // absent or foreign task
	CodeUnknownPTY             = -32022 // absent, closed or foreign PTY
	CodePTYSpawnFailed         = -32023 // PTY could not be started
	CodeAuthFailed             = -32030 // token invalid, revoked, expired, or store unreadable
)

// codeNames pairs each code with its contract name: an array, static data,
// where a map literal would be built by a package initialiser at every
// start of every binary.
var codeNames = [...]struct {
	code int
	name string
}{
	{CodeRPCParseError, "RPC_PARSE_ERROR"},
	{CodeInvalidRequest, "INVALID_REQUEST"},
	{CodeMethodNotFound, "METHOD_NOT_FOUND"},
	{CodeInvalidParams, "INVALID_PARAMS"},
	{CodeInternalError, "INTERNAL_ERROR"},
	{CodeNotAttached, "NOT_ATTACHED"},
	{CodeParseError, "PARSE_ERROR"},
	{CodeRaised, "RAISED"},
	{CodeUnknownRef, "UNKNOWN_REF"},
	{CodeBadPathOrSlice, "BAD_PATH_OR_SLICE"},
	{CodeLeashDenied, "LEASH_DENIED"},
	{CodeApprovalRequired, "APPROVAL_REQUIRED"},
	{CodeUnknownPlan, "UNKNOWN_PLAN"},
	{CodeTaskControlUnavailable, "TASK_CONTROL_UNAVAILABLE"},
	{CodeUnknownTask, "UNKNOWN_TASK"},
	{CodeUnknownPTY, "UNKNOWN_PTY"},
	{CodePTYSpawnFailed, "PTY_SPAWN_FAILED"},
	{CodeAuthFailed, "AUTH_FAILED"},
}

// CodeName returns the contract name of an error code, e.g.
// "NOT_ATTACHED", or "" for a code the contract does not define.
func CodeName(code int) string {
	for _, c := range codeNames {
		if c.code == code {
			return c.name
		}
	}
	return ""
}
