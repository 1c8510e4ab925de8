#!/usr/bin/env python3
"""Runs an ELF executable and records which of its functions ran, each at its first call.

usage: scripts/function-trace.py OUTPUT BINARY [ARGS...]

A one-shot breakpoint (int3) is written over the first byte of every function symbol of BINARY's
own text (nm) in the traced process, right after exec and before ld.so runs any of its code. At a
function's first call the breakpoint traps: its name is recorded, its byte restored and the thread
goes on, so each function costs one trap in all (threads are followed; signals are passed on).
When BINARY exits, OUTPUT gets one symbol a line, in the order of first calls, and this script exits
with BINARY's status. SIGTERM and SIGINT sent to this script go to BINARY. Root or the ptrace
capability over the child is needed (ptrace_scope).
Used by scripts/text-order to find the code livelocd runs; see there.
"""
import ctypes, os, signal, subprocess, sys

PTRACE_TRACEME, PTRACE_CONT, PTRACE_GETREGS, PTRACE_SETREGS, PTRACE_SETOPTIONS = 0, 7, 12, 13, 0x4200
PTRACE_O_TRACECLONE, PTRACE_O_EXITKILL = 0x8, 0x100000
PTRACE_EVENT_CLONE = 3
WALL = 0x40000000


class Registers(ctypes.Structure):  # struct user_regs_struct, x86_64
    _fields_ = [(name, ctypes.c_ulonglong) for name in (
        "r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags rsp ss "
        "fs_base gs_base ds es fs gs").split()]


def functions(binary):
    """{virtual address: symbol} of the functions in BINARY's executable segment."""
    text = []
    for line in subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        words = line.split()
        if words[:1] == ["LOAD"] and "E" in words[6:-1]:
            text.append((int(words[2], 16), int(words[4], 16)))
    found = {}
    out = subprocess.run(["nm", "--defined-only", "-S", binary], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        words = line.split(" ", 3)
        if len(words) == 3:  # no size (crt's labels): address, type, name
            words = [words[0], "0", words[1], words[2]]
        if len(words) == 4 and words[2] in "TtWw":
            address = int(words[0], 16)
            if any(start <= address < start + size for start, size in text):
                found.setdefault(address, words[3])  # aliases: the first name
    return found


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    output, binary, arguments = sys.argv[1], sys.argv[2], sys.argv[3:]
    symbols = functions(binary)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    libc.ptrace.restype = ctypes.c_long

    child = os.fork()
    if child == 0:
        libc.ptrace(PTRACE_TRACEME, 0, None, None)
        os.execv(binary, [binary] + arguments)
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, lambda number, frame: os.kill(child, number))

    _, status = os.waitpid(child, WALL)  # the stop at exec: the binary and ld.so are mapped, nothing ran
    libc.ptrace(PTRACE_SETOPTIONS, child, None, PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL)
    base = None
    for line in open(f"/proc/{child}/maps"):
        words = line.split()
        if len(words) >= 6 and os.path.realpath(words[5]) == os.path.realpath(binary) and int(words[2], 16) == 0:
            base = int(words[0].split("-")[0], 16)  # ELF type DYN: where the file's start is mapped
            break
    if base is None:
        sys.exit(f"function-trace: {binary} is not mapped in the child")
    memory = os.open(f"/proc/{child}/mem", os.O_RDWR)
    original = {}
    for address in symbols:
        original[base + address] = os.pread(memory, 1, base + address)
        os.pwrite(memory, b"\xcc", base + address)

    order, seen = [], set()
    registers = Registers()
    exit_status = 0
    pending = {child: 0}  # thread → signal to deliver at its next continue
    libc.ptrace(PTRACE_CONT, child, None, None)
    pending.pop(child)
    while True:
        try:
            thread, status = os.waitpid(-1, WALL)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if os.WIFEXITED(status) or os.WIFSIGNALED(status):
            if thread == child:
                exit_status = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
            continue
        if not os.WIFSTOPPED(status):
            continue
        stop, deliver = os.WSTOPSIG(status), 0
        if stop == signal.SIGTRAP and status >> 16 == PTRACE_EVENT_CLONE:
            pass  # the new thread arrives with a SIGSTOP of its own, handled below
        elif stop == signal.SIGTRAP:
            libc.ptrace(PTRACE_GETREGS, thread, None, ctypes.byref(registers))
            address = registers.rip - 1
            if address in original:  # one of ours: this thread or another ran into it first
                if address not in seen:
                    seen.add(address)
                    order.append(symbols[address - base])
                    os.pwrite(memory, original[address], address)
                registers.rip = address
                libc.ptrace(PTRACE_SETREGS, thread, None, ctypes.byref(registers))
            else:
                deliver = stop
        elif stop == signal.SIGSTOP:
            pass  # a new thread's first stop (or a stop we do not keep)
        else:
            deliver = stop
        libc.ptrace(PTRACE_CONT, thread, None, deliver)

    with open(output, "w") as out:
        out.writelines(name + "\n" for name in order)
    sys.exit(exit_status)


if __name__ == "__main__":
    main()
