//go:build linux

package sandbox

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock's TCP rules cover connect(2) and bind(2) of sockets whose
// protocol is TCP, and nothing else. On this project's reference kernel
// (Linux 6.18, ABI 7) these all reach ports the rules refuse:
//
//   - an MPTCP socket (which falls back to plain TCP with a peer that
//     does not speak it), and likewise SCTP and DCCP sockets;
//   - TCP Fast Open: sendto or sendmsg with MSG_FASTOPEN connects an
//     unconnected TCP socket without connect(2);
//   - io_uring, which creates, connects and sends on sockets where a
//     seccomp filter cannot look;
//   - listen(2) on an unbound socket, which takes an ephemeral port
//     without bind(2) (not closed: see docs/security.md).
//
// So when the network is restricted the confined thread also installs a
// seccomp filter (netProgram) that leaves socket(2) in the Internet
// families only plain TCP (SOCK_STREAM with protocol 0 or IPPROTO_TCP),
// datagram sockets (UDP, ICMP ping) and raw sockets (which need
// CAP_NET_RAW, dropped beforehand); refuses every family but Unix,
// netlink and the Internet ones; refuses MSG_FASTOPEN on sendto, sendmsg
// and sendmmsg; and refuses io_uring. A program of another architecture
// (32-bit compat, x32) is killed at its first system call: its numbers
// are not the ones the filter checks.

// seccomp_data offsets (struct seccomp_data: nr, arch, ip, args[6]); the
// low 32 bits of args[i] on a little-endian machine.
const (
	offNr   = 0
	offArch = 4
)

func offArg(i uint32) uint32 { return 16 + 8*i }

const (
	retAllow     = unix.SECCOMP_RET_ALLOW
	retKill      = unix.SECCOMP_RET_KILL_PROCESS
	retNoProto   = unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT)
	retNoFamily  = unix.SECCOMP_RET_ERRNO | uint32(unix.EAFNOSUPPORT)
	retNoSyscall = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	retNoFlag    = unix.SECCOMP_RET_ERRNO | uint32(unix.EOPNOTSUPP)
)

const (
	ldW  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	andK = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
	ret  = unix.BPF_RET | unix.BPF_K
)

// bpf assembles a classic BPF program with named jump targets.
type bpf struct {
	ins    []unix.SockFilter
	labels map[string]int
	fixes  []fixup
}

type fixup struct {
	at     int
	jt, jf string
}

func (b *bpf) op(code uint16, k uint32) { b.ins = append(b.ins, unix.SockFilter{Code: code, K: k}) }

// jump to jt when the test holds, else to jf ("" means the next
// instruction).
func (b *bpf) jump(code uint16, k uint32, jt, jf string) {
	b.fixes = append(b.fixes, fixup{len(b.ins), jt, jf})
	b.op(code, k)
}

func (b *bpf) label(name string) { b.labels[name] = len(b.ins) }

// assemble resolves the jumps: forward only, at most 255 instructions
// (classic BPF's limits).
func (b *bpf) assemble() ([]unix.SockFilter, error) {
	var bad error
	rel := func(from int, name string) uint8 {
		if name == "" {
			return 0
		}
		to, ok := b.labels[name]
		if !ok || to <= from || to-from-1 > 255 {
			bad = fmt.Errorf("sandbox: socket filter: bad jump from %d to %q", from, name)
			return 0
		}
		return uint8(to - from - 1)
	}
	for _, f := range b.fixes {
		b.ins[f.at].Jt, b.ins[f.at].Jf = rel(f.at, f.jt), rel(f.at, f.jf)
	}
	return b.ins, bad
}

// netProgram is the filter described above.
func netProgram() ([]unix.SockFilter, error) {
	b := &bpf{labels: map[string]int{}}
	b.op(ldW, offArch)
	b.jump(jeq, auditArch, "native", "")
	b.op(ret, retKill)
	b.label("native")
	b.op(ldW, offNr)
	if x32Bit != 0 {
		b.jump(jge, x32Bit, "kill", "")
	}
	b.jump(jeq, unix.SYS_IO_URING_SETUP, "nosys", "")
	b.jump(jeq, unix.SYS_IO_URING_ENTER, "nosys", "")
	b.jump(jeq, unix.SYS_IO_URING_REGISTER, "nosys", "")
	b.jump(jeq, unix.SYS_SOCKET, "socket", "")
	b.jump(jeq, unix.SYS_SENDTO, "flags3", "")
	b.jump(jeq, unix.SYS_SENDMMSG, "flags3", "")
	b.jump(jeq, unix.SYS_SENDMSG, "flags2", "allow")

	b.label("flags3") // sendto(fd, buf, len, flags, ...), sendmmsg(fd, vec, n, flags)
	b.op(ldW, offArg(3))
	b.jump(jset, unix.MSG_FASTOPEN, "noflag", "allow")
	b.label("flags2") // sendmsg(fd, msg, flags)
	b.op(ldW, offArg(2))
	b.jump(jset, unix.MSG_FASTOPEN, "noflag", "allow")

	b.label("socket") // socket(family, type, protocol)
	b.op(ldW, offArg(0))
	b.jump(jeq, unix.AF_INET, "inet", "")
	b.jump(jeq, unix.AF_INET6, "inet", "")
	b.jump(jeq, unix.AF_UNIX, "allow", "")
	b.jump(jeq, unix.AF_NETLINK, "allow", "")
	b.op(ret, retNoFamily)
	b.label("inet")
	b.op(ldW, offArg(1))
	b.op(andK, 0xf) // the type without SOCK_NONBLOCK, SOCK_CLOEXEC
	b.jump(jeq, unix.SOCK_DGRAM, "allow", "")
	b.jump(jeq, unix.SOCK_RAW, "allow", "")
	b.jump(jeq, unix.SOCK_STREAM, "", "noproto")
	b.op(ldW, offArg(2))
	b.jump(jeq, 0, "allow", "")
	b.jump(jeq, unix.IPPROTO_TCP, "allow", "noproto")

	b.label("allow")
	b.op(ret, retAllow)
	b.label("noproto")
	b.op(ret, retNoProto)
	b.label("noflag")
	b.op(ret, retNoFlag)
	b.label("nosys")
	b.op(ret, retNoSyscall)
	b.label("kill")
	b.op(ret, retKill)
	return b.assemble()
}

// netFilterAvailable reports whether the socket filter can be installed
// here: one is written for this architecture and the kernel has seccomp.
func netFilterAvailable() bool {
	if auditArch == 0 {
		return false
	}
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err == nil
}

// netProgramOnce is netProgram, assembled once (by a sync.Once, not
// sync.OnceValues, whose closure a package initialiser would make at every
// start of every binary).
func netProgramOnce() ([]unix.SockFilter, error) {
	netProg.Do(func() { netProg.p, netProg.err = netProgram() })
	return netProg.p, netProg.err
}

var netProg struct {
	sync.Once
	p   []unix.SockFilter
	err error
}

// installNetFilter installs netProgram on the calling thread alone
// (prctl(PR_SET_SECCOMP) has no flags, so never SECCOMP_FILTER_FLAG_TSYNC;
// the thread has no_new_privs by then); the children it forks inherit it.
func installNetFilter() error {
	if auditArch == 0 {
		return fmt.Errorf("sandbox: no socket filter for this architecture")
	}
	p, err := netProgramOnce()
	if err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(p)), Filter: &p[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("sandbox: installing the socket filter: %w", err)
	}
	return nil
}
