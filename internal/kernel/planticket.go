package kernel

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
)

// planDigest is the one digest an approval ticket is bound to: the
// plan's exact source, its stored effects, its owner (principal and
// session) and the generation of the policy in force (policy.Generation).
// An approval, or the allow verdict a plan was stored with, lets the plan
// run only while this digest of the record, under the policy the kernel
// runs with now, is the one it was given for: a plan approved under an
// older policy waits for approval again (see loadPlans, consume).
func planDigest(rec *planRecord, generation string) string {
	h := sha256.New()
	field := func(b []byte) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	field([]byte("shoal plan ticket v1"))
	field([]byte(rec.owner.principal))
	field([]byte(rec.owner.name))
	field([]byte(rec.src))
	writeEffects(field, rec)
	field([]byte(generation))
	return hex.EncodeToString(h.Sum(nil))
}

// writeEffects adds the plan's effects, reversibility and opacity to the
// digest as their JSON, the form they are stored in (so a plan read back
// from the journal digests as it did when stored).
func writeEffects(field func([]byte), rec *planRecord) {
	if rec.plan == nil {
		field(nil)
		return
	}
	b, err := json.Marshal(struct {
		Effects       any    `json:"effects"`
		Reversibility string `json:"reversibility"`
		Opaque        bool   `json:"opaque"`
	}{wireEffects(rec.plan.Effects), rec.plan.Reversibility, rec.plan.Opaque})
	if err != nil {
		b = []byte("unencodable")
	}
	field(b)
}
