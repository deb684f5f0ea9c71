package eval

import (
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Stream support in the evaluator: the sinks with effects (save, append,
// render, into), the timer source, and the fallthrough that collects a
// bounded stream and redispatches any other method on the list. The lazy
// combinators live in the value package.

func registerStreams(p *Part) {
	p.Method(&Method{Kind: value.KStream, Name: "save", Call: streamSave, Effects: EffSaveMethod,
		Help: Help{Summary: "write each item of the stream to a file as it comes, one line each", Usage: "STREAM.save(PATH)", Example: "every(1s).take(2).save(\"ticks.txt\")"}})
	p.Method(&Method{Kind: value.KStream, Name: "append", Call: streamSave, Effects: EffSaveMethod,
		Help: Help{Summary: "append each item of the stream to a file as it comes, one line each", Usage: "STREAM.append(PATH)", Example: "every(1s).take(2).append(\"ticks.txt\")"}})
	// render writes to the session's output, into publishes on a channel:
	// neither leaves the evaluator.
	p.Method(&Method{Kind: value.KStream, Name: "render", Call: streamRender, Effects: EffNone,
		Help: Help{Summary: "print each item of the stream as it comes", Usage: "STREAM.render()", Example: "every(1s).take(2).render()"}})
	p.Method(&Method{Kind: value.KStream, Name: "into", Call: streamInto, Effects: EffNone,
		Help: Help{Summary: "publish each item of the stream on a channel", Usage: "STREAM.into(CHANNEL)", Example: "every(1s).take(2).into(channel(\"user.ticks\"))"}})
}

// callStreamMethod dispatches a method on a stream: host sinks, then the
// value package's combinators, then collect-and-redispatch.
func (t *thread) callStreamMethod(s *value.Stream, name string, args value.Args) (value.Value, error) {
	if m, ok := t.reg().methods[value.KStream][name]; ok && m.Call != nil {
		return m.Call(&MethodCall{Name: name, t: t}, s, args)
	}
	if m, ok := value.LookupMethod(value.KStream, name); ok {
		return m(t, s, args)
	}
	_, listMethod := value.LookupMethod(value.KList, name)
	if _, ok := t.reg().lookupHostMethod(value.KList, name); !ok && !listMethod {
		// Unknown on lists too: fail without consuming the stream.
		return nil, unknownMethod(s, name)
	}
	list, err := value.CollectStream(t, s)
	if err != nil {
		return nil, err
	}
	if v, ok, err := t.callKnownMethod(list, name, args); ok {
		return v, err
	}
	return nil, unknownMethod(list, name)
}

// streamSave appends one line per item as it arrives: str and bytes as
// their content, anything else as compact JSON. Both names append (neither
// truncates); every write goes through the host gate.
func streamSave(c *MethodCall, recv value.Value, a value.Args) (value.Value, error) {
	if len(a.Pos) != 1 || len(a.Named) > 0 {
		return nil, errorf(codeArg, ".%s takes one path", c.Name)
	}
	p, err := pathText(a.Pos[0])
	if err != nil {
		return nil, err
	}
	t := c.t
	target := t.abs(p)
	s, err := value.AsStream(recv)
	if err != nil {
		return nil, err
	}
	err = value.DriveStream(t, s, func(v value.Value) (bool, error) {
		var line []byte
		switch x := v.(type) {
		case value.Str:
			line = []byte(x)
		case value.Bytes:
			line = []byte(x)
		default:
			b, err := t.compactJSON(v)
			if err != nil {
				return true, err
			}
			line = b
		}
		undoLose(t.ctx, "a stream written to a file")
		if err := t.host.WriteFile(t.ctx, target, append(line, '\n'), true); err != nil {
			return true, hostError(err)
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	return value.Path(target), nil
}

// streamRender drives the stream, writing each item to the statement
// output as it arrives.
func streamRender(c *MethodCall, recv value.Value, a value.Args) (value.Value, error) {
	if len(a.Pos) > 0 || len(a.Named) > 0 {
		return nil, errorf(codeArg, ".render takes no arguments")
	}
	t := c.t
	s, err := value.AsStream(recv)
	if err != nil {
		return nil, err
	}
	err = value.DriveStream(t, s, func(v value.Value) (bool, error) {
		if t.stdout == nil {
			return false, nil
		}
		_, err := t.stdout.Write([]byte(echoText([]value.Value{v}) + "\n"))
		return err != nil, err
	})
	if err != nil {
		return nil, err
	}
	return value.Nil, nil
}

// streamInto publishes every item on a channel.
func streamInto(c *MethodCall, recv value.Value, a value.Args) (value.Value, error) {
	if len(a.Pos) != 1 || len(a.Named) > 0 {
		return nil, errorf(codeArg, ".into takes one channel")
	}
	name, ok := channelName(a.Pos[0])
	if !ok {
		return nil, errorf(codeType, ".into expects a channel, got %s", value.TypeName(a.Pos[0])).
			WithHint(`make one with channel("name")`)
	}
	t := c.t
	bus := t.in.Channels()
	s, err := value.AsStream(recv)
	if err != nil {
		return nil, err
	}
	err = value.DriveStream(t, s, func(v value.Value) (bool, error) {
		return false, bus.Emit(name, v, t.host.Now())
	})
	if err != nil {
		return nil, err
	}
	return value.Nil, nil
}

// execForStream runs a for loop over a stream, pulling one item per pass.
func (t *thread) execForStream(s *value.Stream, iter syntax.Node, step func(value.Value) (bool, error)) error {
	err := value.DriveStream(t, s, step)
	if e, ok := err.(*value.Error); ok && !e.HasPos {
		return e.At(iter.Pos())
	}
	return err
}
