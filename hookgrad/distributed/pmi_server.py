"""A PMI-1 server for one MPI job (MPICH's process-management wire protocol: one
``cmd=... key=value`` line per request), run as a script by ``bootstrap`` on rank 0::

    python pmi_server.py ADDRESS PORT SIZE MAPPING PARENT_PID

It answers each process's start-up questions (its rank, the job's size, the map of ranks
to machines), keeps the key-value space through which the processes exchange their
addresses, and runs PMI barriers. It exits once all ``SIZE`` processes have finalized,
or when the process that started it is gone. Standard library only: it must not import
hookgrad (which would start slowly, and never needs MPI here).
"""

from __future__ import annotations

import os
import socket
import sys
import threading


class Job:
    """The job's key-value space, barrier and count of finalized processes."""

    def __init__(self, size: int, mapping: str) -> None:
        self.size = size
        self.values = {"PMI_process_mapping": mapping}
        self.condition = threading.Condition()
        self.arrived = 0
        self.generation = 0
        self.finalized = 0

    def barrier(self) -> None:
        with self.condition:
            generation = self.generation
            self.arrived += 1
            if self.arrived == self.size:
                self.arrived = 0
                self.generation += 1
                self.condition.notify_all()
            else:
                self.condition.wait_for(lambda: self.generation != generation)


def serve(connection: socket.socket, job: Job) -> None:
    """Answer one process's requests until it finalizes or disconnects."""
    reader = connection.makefile("rb")

    def send(line: str) -> None:
        connection.sendall((line + "\n").encode())

    with connection:
        for raw in reader:
            fields = dict(part.split("=", 1) for part in raw.decode().split() if "=" in part)
            command = fields.get("cmd")
            if command == "initack":
                send("cmd=initack rc=0")
                send(f"cmd=set size={job.size}")
                send(f"cmd=set rank={fields['pmiid']}")
                send("cmd=set debug=0")
            elif command == "init":
                send("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0")
            elif command == "get_maxes":
                send("cmd=maxes kvsname_max=256 keylen_max=256 vallen_max=4096 rc=0")
            elif command == "get_appnum":
                send("cmd=appnum appnum=0 rc=0")
            elif command == "get_my_kvsname":
                send("cmd=my_kvsname kvsname=hookgrad rc=0")
            elif command == "get_universe_size":
                send(f"cmd=universe_size size={job.size} rc=0")
            elif command == "put":
                with job.condition:
                    job.values[fields["key"]] = fields.get("value", "")
                send("cmd=put_result rc=0")
            elif command == "get":
                value = job.values.get(fields.get("key", ""))
                if value is None:
                    send("cmd=get_result rc=-1 msg=key_not_found")
                else:
                    send(f"cmd=get_result rc=0 value={value}")
            elif command == "barrier_in":
                job.barrier()
                send("cmd=barrier_out rc=0")
            elif command == "abort":
                sys.stderr.write(f"hookgrad PMI: a process aborted: {raw.decode().strip()}\n")
            elif command == "finalize":
                send("cmd=finalize_ack rc=0")
                with job.condition:
                    job.finalized += 1
                    job.condition.notify_all()
                return
            else:
                send(f"cmd={command} rc=-1 msg=unsupported")


def main(argv: list[str]) -> None:
    address, port, size, mapping, parent = argv
    job = Job(int(size), mapping)
    server = socket.create_server((address, int(port)))
    server.settimeout(1.0)

    def accept() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            connection.settimeout(None)
            threading.Thread(target=serve, args=(connection, job), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    with job.condition:
        while job.finalized < job.size and _alive(int(parent)):
            job.condition.wait(timeout=1.0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


if __name__ == "__main__":
    main(sys.argv[1:])
