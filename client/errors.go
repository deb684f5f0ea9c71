package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// ErrClosed reports that the connection carrying a call was lost or the
// client was closed. Errors returned for that reason match it with
// errors.Is and also wrap the underlying cause (io.EOF, a read error, a
// malformed frame, or [ErrClientClosed]).
var ErrClosed = errors.New("client: connection closed")

// ErrUnavailable is the cause of a call that waited its
// ReconnectPolicy.CallWait for a connection the client is still
// reconnecting: the kernel did not come back in time. Such errors match
// ErrClosed too.
var ErrUnavailable = errors.New("client: kernel unavailable, still reconnecting")

// unavailableError is the error of a call that waited wait for a
// connection: one message, matching both ErrUnavailable and ErrClosed.
type unavailableError struct{ wait time.Duration }

func (e unavailableError) Error() string {
	return fmt.Sprintf("%s (waited %v)", ErrUnavailable.Error(), e.wait)
}

// Is makes an unavailableError match ErrUnavailable and ErrClosed.
func (e unavailableError) Is(target error) bool {
	return target == ErrUnavailable || target == ErrClosed
}

// ErrClientClosed is the cause recorded when Close was called.
var ErrClientClosed = errors.New("client: closed by caller")

// ErrMalformedFrame is the cause recorded when the kernel sent a line that
// is not valid JSON; the connection cannot be trusted after it.
var ErrMalformedFrame = errors.New("client: malformed frame from kernel")

// ErrFrameTooDeep is the error of a call whose answer from the kernel is
// nested deeper than proto.MaxFrameDepth; the answer is not decoded, and
// the connection stays up.
var ErrFrameTooDeep = errors.New("client: answer from kernel nested too deeply")

// ErrSubscribed reports a second Subscribe to a channel this client is
// already subscribed to.
var ErrSubscribed = errors.New("client: channel already subscribed")

// closedErr wraps cause so that it matches both ErrClosed and cause.
func closedErr(cause error) error {
	switch {
	case cause == nil:
		return ErrClosed
	case errors.Is(cause, ErrClosed):
		return cause
	}
	return fmt.Errorf("%w: %w", ErrClosed, cause)
}

// ErrorCode returns the JSON-RPC error code of the *proto.RPCError in
// err's chain; ok is false when there is none.
func ErrorCode(err error) (code int, ok bool) {
	var e *proto.RPCError
	if !errors.As(err, &e) {
		return 0, false
	}
	return e.Code, true
}

// ErrorData decodes the data member of the *proto.RPCError in err's chain
// into v, for example the span and hint of a PARSE_ERROR or the ref of a
// RAISED error. It reports an error when err carries no RPC error.
func ErrorData(err error, v any) error {
	var e *proto.RPCError
	if !errors.As(err, &e) {
		return fmt.Errorf("client: no RPC error in %w", err)
	}
	raw, merr := json.Marshal(e.Data)
	if merr != nil {
		return fmt.Errorf("client: error data: %w", merr)
	}
	if uerr := json.Unmarshal(raw, v); uerr != nil {
		return fmt.Errorf("client: error data: %w", uerr)
	}
	return nil
}

// ErrDetached reports that the kernel cut this connection's attachment:
// its token was revoked or expired, or the token store became unusable.
// Calls then fail with AUTH_FAILED until the client attaches again with
// another credential.
var ErrDetached = errors.New("client: detached by the kernel")

// DetachedError is the kernel's session.detached notification, the error
// of every subscription it ended. It matches ErrDetached.
type DetachedError struct {
	Session   string `json:"session"`
	Principal string `json:"principal"`
	Token     string `json:"token"`
	Reason    string `json:"reason"` // token_revoked, token_expired, ...
	Message   string `json:"message"`
}

func (e *DetachedError) Error() string { return "client: detached by the kernel: " + e.Message }

// Is makes a DetachedError match ErrDetached.
func (e *DetachedError) Is(target error) bool { return target == ErrDetached }
