package kernel

import (
	"errors"

	membudget "github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/proto"
)

// The wire form of a request or connection refused by a bound: data
// {code, budget, limit}, where code is the language-style code of the
// refusal, budget the bound's name as the Limits field and docs name it,
// and limit its value.

// boundData is the data of an RPC error for the bound named budget.
func boundData(code, budget string, limit int64) map[string]any {
	return map[string]any{"code": code, "budget": budget, "limit": limit}
}

// quotaData is the data of an RPC error for a refused budget.
func quotaData(budget string, limit int64) map[string]any {
	return boundData(membudget.CodeQuotaExceeded, budget, limit)
}

// quotaDenied is a request or connection refused by a budget:
// LEASH_DENIED with quotaData, as every budget answers.
func quotaDenied(msg, budget string, limit int64) *proto.RPCError {
	return proto.NewError(proto.CodeLeashDenied, msg, quotaData(budget, limit))
}

// exceededDenied is the quotaDenied form of a *budget.ExceededError in
// err's chain, or nil when there is none.
func exceededDenied(err error) *proto.RPCError {
	var ex *membudget.ExceededError
	if !errors.As(err, &ex) {
		return nil
	}
	return quotaDenied(ex.Error(), ex.Name, ex.Limit)
}
