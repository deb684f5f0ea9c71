//go:build linux

package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// runBPF interprets the classic BPF subset netProgram uses over one
// struct seccomp_data.
func runBPF(t *testing.T, p []unix.SockFilter, nr int32, arch uint32, args ...uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[0:], uint32(nr))
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(p); pc++ {
		in := p[pc]
		switch in.Code {
		case ldW:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case andK:
			acc &= in.K
		case jeq, jge, jset:
			hold := (in.Code == jeq && acc == in.K) || (in.Code == jge && acc >= in.K) || (in.Code == jset && acc&in.K != 0)
			if hold {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case ret:
			return in.K
		default:
			t.Fatalf("instruction %d: unknown code %#x", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

func TestNetProgramDecisions(t *testing.T) {
	if auditArch == 0 {
		t.Skip("no socket filter on this architecture")
	}
	p, err := netProgram()
	if err != nil {
		t.Fatal(err)
	}
	const nonblock = unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC
	cases := []struct {
		name string
		nr   int32
		arch uint32
		args []uint64
		want uint32
	}{
		{"other architecture", unix.SYS_GETPID, unix.AUDIT_ARCH_I386, nil, retKill},
		{"getpid", unix.SYS_GETPID, auditArch, nil, retAllow},
		{"connect", unix.SYS_CONNECT, auditArch, []uint64{3, 0, 16}, retAllow},
		{"tcp", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_INET, unix.SOCK_STREAM | nonblock, 0}, retAllow},
		{"tcp6 explicit", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP}, retAllow},
		{"udp", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_INET, unix.SOCK_DGRAM | nonblock, 0}, retAllow},
		{"raw", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP}, retAllow},
		{"unix", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_UNIX, unix.SOCK_STREAM, 0}, retAllow},
		{"netlink", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_NETLINK, unix.SOCK_RAW, 0}, retAllow},
		{"mptcp", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_INET, unix.SOCK_STREAM | nonblock, unix.IPPROTO_MPTCP}, retNoProto},
		{"sctp stream", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_SCTP}, retNoProto},
		{"sctp seqpacket", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_INET, unix.SOCK_SEQPACKET, 0}, retNoProto},
		{"dccp", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_INET, unix.SOCK_DCCP, 0}, retNoProto},
		{"protocol high bits ignored as the kernel does", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_INET, unix.SOCK_STREAM, 1<<32 | unix.IPPROTO_MPTCP}, retNoProto},
		{"vsock", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM, 0}, retNoFamily},
		{"packet", unix.SYS_SOCKET, auditArch, []uint64{unix.AF_PACKET, unix.SOCK_RAW, 0}, retNoFamily},
		{"sendto", unix.SYS_SENDTO, auditArch, []uint64{3, 0, 1, 0}, retAllow},
		{"sendto fastopen", unix.SYS_SENDTO, auditArch, []uint64{3, 0, 1, unix.MSG_FASTOPEN | unix.MSG_NOSIGNAL}, retNoFlag},
		{"sendmsg fastopen", unix.SYS_SENDMSG, auditArch, []uint64{3, 0, unix.MSG_FASTOPEN}, retNoFlag},
		{"sendmsg", unix.SYS_SENDMSG, auditArch, []uint64{3, 0, unix.MSG_DONTWAIT}, retAllow},
		{"sendmmsg fastopen", unix.SYS_SENDMMSG, auditArch, []uint64{3, 0, 1, unix.MSG_FASTOPEN}, retNoFlag},
		{"io_uring_setup", unix.SYS_IO_URING_SETUP, auditArch, nil, retNoSyscall},
		{"io_uring_enter", unix.SYS_IO_URING_ENTER, auditArch, nil, retNoSyscall},
		{"io_uring_register", unix.SYS_IO_URING_REGISTER, auditArch, nil, retNoSyscall},
	}
	if x32Bit != 0 {
		cases = append(cases, struct {
			name string
			nr   int32
			arch uint32
			args []uint64
			want uint32
		}{"x32", x32Bit | unix.SYS_SOCKET, auditArch, nil, retKill})
	}
	for _, c := range cases {
		if got := runBPF(t, p, c.nr, c.arch, c.args...); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
}
