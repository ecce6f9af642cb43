"""Containers a conform run left behind, shared by the e2e case scripts."""
import subprocess


def leftover_containers(args, conform_pid):
    """Containers this conform process started that still exist (other runs on the machine are
    not ours to judge): conform names them conform-PID-N-RANDOM."""
    listed = subprocess.run([args.runtime, *(args.global_arg or []), "ps", "-a", "--format",
                             "{{.Names}}"], capture_output=True, text=True, timeout=120)
    prefix = f"conform-{conform_pid}-"
    return [name for name in listed.stdout.split() if name.startswith(prefix)]
