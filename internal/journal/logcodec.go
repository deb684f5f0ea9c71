package journal

import (
	"encoding/binary"
	"errors"
)

// The intent log's record encoding: a version byte, a flags byte, then the
// fields of a logOp in a fixed order, integers as varints and texts as a
// uvarint length and the bytes. Hand-written because encoding/json was
// most of the cost of a logged write (its checks of json.RawMessage
// fields); decoding bounds every length by what is left.

const logCodecVersion = 1

const (
	flagFinish = 1 << iota
	flagFinished
	flagSetEffects
	flagOK
	flagOpaque
	flagStatus
	flagOutputs // Outputs is non-nil
	flagOwn     // PSeq and PID follow TSeq (records written before them have neither)
)

var errLogRecord = errors.New("journal: malformed log record")

// appendOp appends the encoding of op to b.
func appendOp(b []byte, op *logOp) []byte {
	var f byte
	set := func(bit byte, on bool) {
		if on {
			f |= bit
		}
	}
	set(flagFinish, op.Finish)
	set(flagFinished, op.Finished)
	set(flagSetEffects, op.SetEffects)
	set(flagOK, op.OK)
	set(flagOpaque, op.Opaque)
	set(flagStatus, op.Status != nil)
	set(flagOutputs, op.Outputs != nil)
	set(flagOwn, true)
	b = append(b, logCodecVersion, f)
	b = binary.AppendUvarint(b, op.LSN)
	b = binary.AppendVarint(b, op.ID)
	b = appendText(b, op.Kind)
	b = binary.AppendVarint(b, op.Parent)
	b = appendText(b, op.Session)
	b = appendText(b, op.Principal)
	b = binary.AppendVarint(b, op.StartNS)
	b = appendText(b, op.Cwd)
	b = appendText(b, op.Src)
	b = appendText(b, op.Head)
	b = appendBytes(b, op.AST)
	b = appendBytes(b, op.Effects)
	b = binary.AppendVarint(b, op.Mask)
	b = appendText(b, op.Verdict)
	var st int64
	if op.Status != nil {
		st = int64(*op.Status)
	}
	b = binary.AppendVarint(b, st)
	b = appendBytes(b, op.Outputs)
	b = binary.AppendVarint(b, op.FinishNS)
	b = binary.AppendVarint(b, op.RefN)
	b = appendText(b, op.Code)
	b = binary.AppendUvarint(b, op.Seq)
	b = binary.AppendUvarint(b, op.TSeq)
	b = binary.AppendUvarint(b, op.PSeq)
	b = binary.AppendVarint(b, op.PID)
	return b
}

func appendText(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBytes(b []byte, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// opDecoder reads the fields appendOp wrote; the first error sticks.
type opDecoder struct {
	b   []byte
	err error
}

func (d *opDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errLogRecord
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *opDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errLogRecord
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *opDecoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = errLogRecord
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

func (d *opDecoder) text() string { return string(d.bytes()) }

// decodeOp decodes one record appendOp wrote.
func decodeOp(b []byte) (*logOp, error) {
	if len(b) < 2 || b[0] != logCodecVersion {
		return nil, errLogRecord
	}
	f := b[1]
	d := &opDecoder{b: b[2:]}
	op := &logOp{Finish: f&flagFinish != 0, Finished: f&flagFinished != 0, SetEffects: f&flagSetEffects != 0,
		OK: f&flagOK != 0, Opaque: f&flagOpaque != 0}
	op.LSN = d.uvarint()
	op.ID = d.varint()
	op.Kind = d.text()
	op.Parent = d.varint()
	op.Session = d.text()
	op.Principal = d.text()
	op.StartNS = d.varint()
	op.Cwd = d.text()
	op.Src = d.text()
	op.Head = d.text()
	if ast := d.bytes(); len(ast) > 0 {
		op.AST = ast
	}
	if eff := d.bytes(); len(eff) > 0 {
		op.Effects = eff
	}
	op.Mask = d.varint()
	op.Verdict = d.text()
	st := d.varint()
	if f&flagStatus != 0 {
		s := int(st)
		op.Status = &s
	}
	outs := d.bytes()
	if f&flagOutputs != 0 {
		op.Outputs = append([]byte{}, outs...)
	}
	op.FinishNS = d.varint()
	op.RefN = d.varint()
	op.Code = d.text()
	op.Seq = d.uvarint()
	op.TSeq = d.uvarint()
	if f&flagOwn != 0 {
		op.PSeq = d.uvarint()
		op.PID = d.varint()
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, errLogRecord
	}
	return op, nil
}
