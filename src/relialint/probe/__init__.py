"""``relialint probe``: facts and runtime findings from a GPU host.

The readers turn one source each into samples (``reading.Sample``): NVML on the live host (``nvml``), captures
of ``nvidia-smi -q -x`` (``nvsmi_xml``) and ``nvidia-smi --query-gpu ... --format=csv`` (``nvsmi_csv``), and AMD's
``amd-smi`` / ``rocm-smi`` output (``amd``). ``host`` turns samples into the host's facts, ``runtime`` evaluates
the records' runtime triggers over them, and ``factsfile`` / ``collect_env`` read and write facts files.
"""
