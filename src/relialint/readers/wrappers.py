"""Programs that run another program (``exec``, ``nohup``, ``env``, ``sudo``, ``gosu``, ``tini``, ``numactl``...),
looked through to the command they start, and ``sh -c SCRIPT`` found in a command's words. No engine knowledge:
only the wrappers' own option syntax."""

from __future__ import annotations

from relialint.readers.located import EnvVar, Word

_SIMPLE = {"exec", "nohup", "time", "command", "builtin", "stdbuf", "setsid"}
_USER_FIRST = {"gosu", "su-exec"}
"""``gosu USER COMMAND...``: one user (or ``user:group``) word, then the command."""
_INIT = {"tini": {"-p", "-e"}, "tini-static": {"-p", "-e"}, "dumb-init": {"-r", "--rewrite"}}
"""Init processes (``tini [options] [--] COMMAND``), with the options that take a value."""
_NUMACTL_VALUE = {"-N", "--cpunodebind", "-m", "--membind", "-C", "--physcpubind", "-i", "--interleave",
                  "-p", "--preferred", "-P", "--preferred-many"}
_SHELLS = {"sh", "bash", "ash", "dash", "zsh", "ksh"}
_SRUN_VALUE = {"-A", "--account", "-c", "--cpus-per-task", "-d", "--dependency", "-D", "--chdir", "-e", "--error",
               "-i", "--input", "-J", "--job-name", "-m", "--distribution", "-n", "--ntasks", "-N", "--nodes",
               "-o", "--output", "-p", "--partition", "-q", "--qos", "-t", "--time", "-w", "--nodelist",
               "-x", "--exclude", "-G", "--gpus", "-C", "--constraint", "--gres", "--mem", "--mpi", "--export",
               "--gpus-per-node", "--gpus-per-task", "--ntasks-per-node", "--container-image",
               "--container-mounts", "--container-workdir", "--mem-per-cpu", "--mem-per-gpu", "--cpu-bind"}
"""Slurm ``srun`` options that take a value as a separate word (``srun -N 1 --gres gpu:4 vllm serve ...``)."""


def _text(word: Word) -> str:
    return word.text or ""


def _skip_options(words: list[Word], valued: set[str]) -> list[Word]:
    """Drop leading options (and the value of those in ``valued`` written as a separate word) and a ``--``."""
    while words and _text(words[0]).startswith("-"):
        flag = _text(words[0])
        words = words[1:]
        if flag == "--":
            break
        if flag in valued and words:
            words = words[1:]
    return words


def unwrap(words: list[Word], env: list[EnvVar]) -> tuple[list[Word], list[EnvVar]]:
    """The command a chain of wrappers starts, and the environment ``env VAR=x`` / ``systemd-run -E`` add."""
    changed = True
    while changed and words:
        changed = False
        head = _text(words[0]).rsplit("/", 1)[-1]
        if head in _SIMPLE:
            words = words[1:]
            if head == "stdbuf":
                words = _skip_options(words, set())
            elif head == "exec":
                words = _skip_options(words, {"-a"})
            changed = True
        elif head == "env":
            words = words[1:]
            while words and words[0].text is not None and ("=" in words[0].text or words[0].text.startswith("-")):
                text = words[0].text
                if "=" in text and not text.startswith("-"):
                    name, _, value = text.partition("=")
                    env = [*env, EnvVar(name, value, words[0].span, words[0].source)]
                elif text in ("-u", "--unset", "-C", "--chdir", "-S"):
                    words = words[1:]
                words = words[1:]
            changed = True
        elif head in ("sudo", "runuser"):
            words = _skip_options(words[1:], {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"})
            changed = True
        elif head in _USER_FIRST:
            words = words[2:]
            changed = True
        elif head in _INIT:
            words = _skip_options(words[1:], _INIT[head])
            changed = True
        elif head == "numactl":
            words = _skip_options(words[1:], _NUMACTL_VALUE)
            changed = True
        elif head in ("nice", "ionice", "chrt"):
            words = _skip_options(words[1:], {"-n", "-c", "-p", "--adjustment", "--class", "--classdata"})
            if head == "chrt" and words:
                words = words[1:]  # the priority
            changed = True
        elif head == "taskset":
            words = _skip_options(words[1:], set())
            if words:
                words = words[1:]  # the mask or CPU list
            changed = True
        elif head == "timeout":
            words = _skip_options(words[1:], {"-s", "--signal", "-k", "--kill-after"})
            if words:
                words = words[1:]
            changed = True
        elif head == "srun":
            words = _skip_options(words[1:], _SRUN_VALUE)
            changed = True
        elif head in ("conda", "mamba", "micromamba") and len(words) > 1 and _text(words[1]) == "run":
            words = _skip_options(words[2:], {"-n", "--name", "-p", "--prefix", "--cwd"})
            changed = True
        elif head == "systemd-run":
            words = words[1:]
            while words and _text(words[0]).startswith("-"):
                flag = _text(words[0])
                words = words[1:]
                if flag in ("-p", "--property", "-u", "--unit", "-E", "--setenv", "--slice", "--uid", "--gid",
                            "-M", "--machine", "--description") and words:
                    if flag in ("-E", "--setenv") and words[0].text and "=" in words[0].text:
                        name, _, value = words[0].text.partition("=")
                        env = [*env, EnvVar(name, value, words[0].span)]
                    words = words[1:]
            changed = True
    return words, env


def unwrap_container(entrypoint: list[Word] | None, argv: list[Word]) -> tuple[list[Word] | None, list[Word]]:
    """A container's entrypoint and arguments with wrappers looked through (``ENTRYPOINT ["tini", "--"]``,
    ``command: gosu app vllm serve ...``): the wrapped command's words, split the same way."""
    combined = (entrypoint or []) + argv
    stripped, _ = unwrap(combined, [])
    cut = len(combined) - len(stripped)
    if cut == 0 or not stripped:
        return entrypoint, argv
    if entrypoint is None:
        return None, stripped
    if cut <= len(entrypoint):
        return entrypoint[cut:], argv
    return [], argv[cut - len(entrypoint):]


def shell_script(words: list[Word]) -> Word | None:
    """The script word of ``sh -c SCRIPT`` / ``bash -lc SCRIPT`` (after any wrappers), or ``None``."""
    words, _ = unwrap(words, [])
    if not words or _text(words[0]).rsplit("/", 1)[-1] not in _SHELLS:
        return None
    index = 1
    while index < len(words) and _text(words[index]).startswith("-") and _text(words[index]) != "--":
        flag = _text(words[index])
        if not flag.startswith("--") and "c" in flag[1:]:
            return words[index + 1] if index + 1 < len(words) else None
        index += 1
    return None
