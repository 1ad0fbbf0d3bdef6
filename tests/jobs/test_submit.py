"""jobs/submit's pieces without a cluster or nqc: Slurm times, options, the job specifications
and their #SBATCH directive lists (as ReFrame tests its Slurm backend: lists, not files), the
aggregation job's time limit, the option table against jobs/README.md, the plan read from
stand-ins for `nqc run --dry-run --json` (its JSON, old and new; its failures by exit code), and
--wait against stand-ins for scontrol (the jobs' states, poll by poll) and nqc (--help's exit
codes, whether results.h5 is complete).

  /usr/bin/python3 tests/jobs/test_submit.py [-v]
"""

import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_loader = importlib.machinery.SourceFileLoader("submit", os.path.join(REPO, "jobs", "submit"))
_spec = importlib.util.spec_from_loader("submit", _loader)
submit = importlib.util.module_from_spec(_spec)
_loader.exec_module(submit)

PLAN = submit.Plan(config="/c/golden.json", name="golden", output="/r/golden", shards=15, cases=230)


def options(*argv):
    opts = submit.parse_args(["/c/golden.json"] + list(argv))
    submit.check_combinations(opts)
    return opts


class Times(unittest.TestCase):
    def test_every_sbatch_form(self):
        forms = {
            "120": 7200,  # minutes
            "1": 60,
            "30:00": 1800,  # minutes:seconds
            "90:30": 5430,
            "1:00:00": 3600,  # hours:minutes:seconds
            "00:01:00": 60,
            "1:2:3": 3723,
            "100:00:00": 360000,
            "1-0": 86400,  # days-hours
            "2-12": 2 * 86400 + 12 * 3600,
            "1-12:30": 86400 + 12 * 3600 + 30 * 60,  # days-hours:minutes
            "1-00:00:00": 86400,  # days-hours:minutes:seconds
            "7-23:59:59": 7 * 86400 + 86399,
            "0:01": 1,
        }
        for text, seconds in forms.items():
            with self.subTest(text=text):
                self.assertEqual(submit.time_seconds(text), seconds)

    def test_no_limit(self):
        """man sbatch: "A time limit of zero requests that no time limit be imposed", in any form;
        Slurm's parser also takes UNLIMITED and INFINITE, in any letter case."""
        for text in [
            "0",
            "00",
            "0:00",
            "00:00:00",
            "0-0",
            "0-00:00",
            "0-00:00:00",
            "UNLIMITED",
            "unlimited",
            "INFINITE",
            "Infinite",
        ]:
            with self.subTest(text=text):
                self.assertEqual(submit.time_seconds(text), submit.NO_LIMIT)
        self.assertEqual(submit.NO_LIMIT, float("inf"))

    def test_malformed(self):
        for text in [
            "",
            "abc",
            "1h",
            "01:00:00x",
            "-1:00:00",
            "1-2-03:00:00",
            "00:60:00",
            "1:60",
            "1-24",
            "1-123:00",
            "1-00:60",
            "1:00:00:00",
            ":30",
            "1-",
            " 10",
            "UNLIMITEDX",
            "INFINITY",
            "NONE",
            "-1",
            "1.5",
        ]:
            with self.subTest(text=text):
                self.assertIsNone(submit.time_seconds(text))

    def test_messages(self):
        with self.assertRaisesRegex(
            submit.Usage,
            r"^--time: expected a time limit as sbatch takes it \(MM, MM:SS, "
            r"HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or 0, UNLIMITED or INFINITE for no "
            r"limit\), got '1h'$",
        ):
            options("--time", "1h")
        with self.assertRaisesRegex(submit.Usage, r"^--grace 120 must be shorter than the --time limit 2 \(120 s\)$"):
            options("--time", "2")

    def test_no_limit_and_the_grace(self):
        """With no limit any --grace is accepted: the signal directive stays (Slurm sends it only
        if the job gets a limit later, e.g. scontrol update TimeLimit), the limit is written as
        given, and the aggregation job keeps its own default (no limit is not shorter)."""
        for text in ["0", "0:00", "UNLIMITED", "infinite"]:
            with self.subTest(text=text):
                opts = options("--time", text, "--grace", "65535")
                run = submit.directives(submit.run_job(opts, PLAN))
                self.assertIn(f"#SBATCH --time={text}", run)
                self.assertIn("#SBATCH --signal=B:USR1@65535", run)
                self.assertEqual(submit.aggregate_job(opts, PLAN).time, "00:30:00")
        self.assertEqual(submit.aggregate_job(options("--aggregate-time", "UNLIMITED"), PLAN).time, "UNLIMITED")


class Options(unittest.TestCase):
    def test_defaults(self):
        opts = options()
        self.assertEqual(
            (opts["ntasks"], opts["array"], opts["grace"], opts["max_requeues"], opts["launcher"]),
            (1, 1, 120, 20, "auto"),
        )
        self.assertEqual(
            (opts["aggregate"], opts["aggregate_only"], opts["wait"], opts["dry_run"]), (True, False, False, False)
        )
        self.assertEqual((opts["sbatch"], opts["setup"], opts["time"], opts["nodes"]), ([], [], None, None))

    def test_inline_values_equal_separate_ones(self):
        a = options("--ntasks", "2", "--time", "1-0", "--sbatch=--mem=1G", "--setup", "module load x")
        b = options("--ntasks=2", "--time=1-0", "--sbatch=--mem=1G", "--setup=module load x")
        for key in ("ntasks", "time", "sbatch", "setup"):
            self.assertEqual(a[key], b[key])

    def test_setup_lines_and_files_keep_their_order(self):
        opts = options("--setup", "a", "--setup-file", "/f", "--setup", "b")
        self.assertEqual(opts["setup"], [("line", "a"), ("file", "/f"), ("line", "b")])

    def test_errors(self):
        cases = [
            (
                ["--ntasks"],
                "option --ntasks needs a value (see jobs/submit --help); a value that starts with - goes "
                "after =, e.g. --sbatch=--mem-per-cpu=2G",
            ),
            (
                ["--sbatch", "--mem=1G"],
                "option --sbatch needs a value (see jobs/submit --help); a value that starts "
                "with - goes after =, e.g. --sbatch=--mem-per-cpu=2G",
            ),
            (["--ntasks="], "option --ntasks needs a value (see jobs/submit --help)"),
            (["--wait=1"], "option --wait takes no value"),
            (["--nodse", "2"], "unknown option '--nodse' (see jobs/submit --help)"),
            (["other.json"], "one CONFIG only (got '/c/golden.json' and 'other.json')"),
            (["--ntasks", "0"], "--ntasks: expected a positive integer, got '0'"),
            (["--array", "-2"], "--array: expected a positive number of parts, got '-2'"),
            (["--grace", "70000"], "--grace: expected seconds in 1..65535, got '70000'"),
            (["--launcher", "aprun"], "--launcher: expected auto, srun or mpirun, got 'aprun'"),
            (
                ["--sbatch", "--mem 1G"],
                "--sbatch: expected one sbatch option without spaces or quotes, "
                "e.g. --sbatch=--mem-per-cpu=2G, got '--mem 1G'",
            ),
            (["--after", "5"], "--after goes with --aggregate-only"),
            (["--aggregate-only", "--no-aggregate"], "--aggregate-only and --no-aggregate exclude each other"),
            (["--aggregate-only", "--array", "2"], "--array goes with a run job, not with --aggregate-only"),
            (["--write", "d"], "--write goes with --print (or --dry-run)"),
            (
                ["--aggregate-time", "1x"],
                "--aggregate-time: expected a time limit as sbatch takes it (MM, MM:SS, "
                "HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or 0, UNLIMITED or INFINITE for "
                "no limit), got '1x'",
            ),
            # "-" is standard output or input, as for nqc; a directory or a config cannot be one.
            (["-o", "-"], "-o: '-' (standard output) cannot be a results directory; give a directory"),
            (["--output=-"], "--output: '-' (standard output) cannot be a results directory; give a directory"),
            (
                ["--print", "--write", "-"],
                "--write: '-' (standard output) cannot be a directory (--print without "
                "--write prints the scripts); give a directory",
            ),
            (
                ["--setup-file", "-", "--setup-file", "-"],
                "--setup-file: '-' (standard input) given twice; standard input holds one file",
            ),
        ]
        for argv, message in cases:
            with self.subTest(argv=argv):
                with self.assertRaises(submit.Usage) as raised:
                    options(*argv)
                self.assertEqual(str(raised.exception), message)
        with self.assertRaises(submit.Usage) as raised:
            submit.check_combinations(submit.parse_args([]))
        self.assertEqual(
            str(raised.exception), "a CONFIG file is required (usage: jobs/submit CONFIG [options]; see --help)"
        )
        with self.assertRaises(submit.Usage) as raised:
            submit.check_combinations(submit.parse_args(["-"]))
        self.assertEqual(
            str(raised.exception),
            "CONFIG: '-' (standard input) cannot be a config: nqc and the jobs read it by name; give a file",
        )

    def test_help_lists_every_option_and_default(self):
        text = submit.help_text()
        for option in submit.OPTIONS:
            for name in option.names:
                self.assertRegex(text, r"(?m)^  .*" + re.escape(name) + r"\b")
            if isinstance(option.default, (int, str)) and not isinstance(option.default, bool):
                self.assertIn(f"(default {option.default})", text)

    def test_readme_table_lists_every_option_with_its_default(self):
        with open(os.path.join(REPO, "jobs", "README.md"), encoding="utf-8") as f:
            rows = [line for line in f if line.startswith("| `-")]
        documented = {
            name
            for row in rows
            for span in re.findall(r"`([^`]*)`", row.split("|")[1])
            for name in re.findall(r"(?<![\w-])--?[a-z][a-z-]*", span)
        }
        declared = {name for option in submit.OPTIONS for name in option.names} | {"-h", "--help"}  # argparse's
        self.assertEqual(documented, declared, "jobs/README.md's option table and jobs/submit's OPTIONS differ")
        for option in submit.OPTIONS:
            if isinstance(option.default, (int, str)) and not isinstance(option.default, bool):
                row = next(r for r in rows if option.names[-1] in r.split("|")[1])
                self.assertIn(f"default {option.default}", row.replace("`", ""), row)


class Directives(unittest.TestCase):
    def test_run_job_defaults(self):
        self.assertEqual(
            submit.directives(submit.run_job(options(), PLAN)),
            [
                "#SBATCH --job-name=nqc-golden",
                "#SBATCH --ntasks=1",
                "#SBATCH --output=/r/golden/logs/%x-%j.out",
                "#SBATCH --open-mode=append",
                "#SBATCH --signal=B:USR1@120",
                "#SBATCH --requeue",
                "#SBATCH --comment=nqc-run:/r/golden",
                "#SBATCH --chdir=/r/golden",
            ],
        )

    def test_aggregation_job_defaults(self):
        self.assertEqual(
            submit.directives(submit.aggregate_job(options(), PLAN)),
            [
                "#SBATCH --job-name=nqc-golden-aggregate",
                "#SBATCH --ntasks=1",
                "#SBATCH --output=/r/golden/logs/%x-%j.out",
                "#SBATCH --comment=nqc-aggregate:/r/golden",
                "#SBATCH --time=00:30:00",
                "#SBATCH --chdir=/r/golden",
            ],
        )

    def test_every_option(self):
        opts = options(
            "--nodes",
            "1",
            "--ntasks",
            "2",
            "--time",
            "1-0",
            "--partition",
            "debug",
            "--account",
            "proj",
            "--array",
            "3",
            "--grace",
            "300",
            "--launcher",
            "srun",
            "--job-name",
            "study",
            "--sbatch=--mem-per-cpu=1G",
            "--sbatch=--constraint=x86",
        )
        self.assertEqual(
            submit.directives(submit.run_job(opts, PLAN)),
            [
                "#SBATCH --job-name=study",
                "#SBATCH --nodes=1",
                "#SBATCH --ntasks=2",
                "#SBATCH --array=0-2",
                "#SBATCH --output=/r/golden/logs/%x-%A_%a.out",
                "#SBATCH --open-mode=append",
                "#SBATCH --signal=B:USR1@300",
                "#SBATCH --requeue",
                "#SBATCH --comment=nqc-run:/r/golden",
                "#SBATCH --time=1-0",
                "#SBATCH --partition=debug",
                "#SBATCH --account=proj",
                "#SBATCH --mem-per-cpu=1G",
                "#SBATCH --constraint=x86",
                "#SBATCH --chdir=/r/golden",
            ],
        )
        self.assertEqual(
            submit.directives(submit.aggregate_job(opts, PLAN)),
            [
                "#SBATCH --job-name=study-aggregate",
                "#SBATCH --ntasks=1",
                "#SBATCH --output=/r/golden/logs/%x-%j.out",
                "#SBATCH --comment=nqc-aggregate:/r/golden",
                "#SBATCH --time=00:30:00",
                "#SBATCH --partition=debug",
                "#SBATCH --account=proj",
                "#SBATCH --mem-per-cpu=1G",
                "#SBATCH --constraint=x86",
                "#SBATCH --chdir=/r/golden",
            ],
        )

    def test_aggregation_time_limit(self):
        def limit(*argv):
            return submit.aggregate_job(options(*argv), PLAN).time

        self.assertEqual(limit(), "00:30:00")
        self.assertEqual(limit("--time", "2-0"), "00:30:00")
        self.assertEqual(limit("--time", "10", "--grace", "60"), "10")  # 10 minutes: shorter than the default
        self.assertEqual(limit("--aggregate-time", "2:00:00"), "2:00:00")
        self.assertEqual(limit("--time", "10", "--grace", "60", "--aggregate-time", "45"), "45")

    def test_job_name_from_the_config_name(self):
        plan = submit.Plan(config="/c/any-file.json", name="study.v2", output="/r/x", shards=1, cases=1)
        self.assertEqual(submit.run_job(options(), plan).name, "nqc-study.v2")
        self.assertEqual(submit.aggregate_job(options(), plan).name, "nqc-study.v2-aggregate")

    def test_parameters(self):
        opts = options("--array", "3", "--max-requeues", "5", "--launcher", "mpirun", "--grace", "30")
        self.assertEqual(
            submit.run_parameters(opts, PLAN, "/b/nqc", {"ok": 0, "io_error": 7}),
            {
                "NQC": "/b/nqc",
                "CONFIG": "/c/golden.json",
                "OUT": "/r/golden",
                "PARTS": 3,
                "MAX_REQUEUES": 5,
                "LAUNCHER": "mpirun",
                "GRACE": 30,
                "EXIT_CODES": "ok=0 io_error=7",
            },
        )
        self.assertEqual(
            submit.aggregate_parameters(PLAN, "/b/nqc", "/v/bin/python"),
            {"NQC": "/b/nqc", "CONFIG": "/c/golden.json", "OUT": "/r/golden", "REPO": REPO, "PYTHON": "/v/bin/python"},
        )


class Scripts(unittest.TestCase):
    def test_layout(self):
        """Shebang, directives, parameters, set-up lines, then the static templates verbatim."""
        text = submit.run_script(options(), PLAN, "/b/nqc", ["module load openmpi", "source /v/bin/activate"], CODES)
        lines = text.splitlines()
        self.assertEqual(lines[0], "#!/bin/bash")
        sbatch = [i for i, line in enumerate(lines) if line.startswith("#SBATCH")]
        self.assertEqual(sbatch, list(range(1, 1 + len(sbatch))), "the #SBATCH lines come first, together")
        setup = lines.index("module load openmpi")
        self.assertEqual(lines[setup + 1], "source /v/bin/activate")
        self.assertLess(max(lines.index(f"{k}={v}") for k, v in (("NQC", "/b/nqc"), ("PARTS", 1))), setup)
        self.assertLess(setup, lines.index("set -uo pipefail"), "set-up lines run before the template")
        for name in ("common.sh", "run.sh"):
            with open(os.path.join(REPO, "jobs", "templates", name), encoding="utf-8") as f:
                body = f.read().split("\n", 1)[1]
            self.assertIn(body, text, f"jobs/templates/{name} is copied verbatim")
        self.assertIn(
            "EXIT_CODES='ok=0 bad_input=1 infeasible=2 gave_up=3 interrupted=4 engine_bug=5 rerun_differs=6 "
            "io_error=7 out_of_memory=8'",
            lines,
            "nqc's exit codes, by name",
        )
        self.assertNotIn("module load", submit.run_script(options(), PLAN, "/b/nqc", [], CODES))

    def test_parameters_are_shell_quoted(self):
        plan = submit.Plan(config="/c/it's.json", name="x", output="/r/x", shards=1, cases=1)
        text = submit.aggregate_script(options(), plan, "/b/nqc", "/opt/py 3/python", [])
        self.assertIn("CONFIG='/c/it'\"'\"'s.json'", text)
        self.assertIn("PYTHON='/opt/py 3/python'", text)

    def test_setup_lines_must_parse(self):
        with self.assertRaisesRegex(
            submit.Usage,
            r"^--setup, --setup-file: the set-up lines are not valid bash: "
            r"line 1: unexpected EOF while looking for matching `''",
        ):
            submit.setup_lines([("line", "module load 'openmpi")])
        with self.assertRaisesRegex(submit.Usage, r"^--setup-file /no/such/file: no such file$"):
            submit.setup_lines([("file", "/no/such/file")])
        self.assertEqual(submit.setup_lines([("line", "a\nb"), ("line", "c")]), ["a", "b", "c"])

    def test_setup_file_from_standard_input(self):
        """--setup-file - reads the set-up lines from standard input, in order with the others."""
        import io

        saved = sys.stdin
        try:
            sys.stdin = io.TextIOWrapper(io.BytesIO(b"module load a\nexport X=1\n"))
            self.assertEqual(
                submit.setup_lines([("line", "first"), ("file", "-"), ("line", "last")]),
                ["first", "module load a", "export X=1", "last"],
            )
        finally:
            sys.stdin = saved


class Plans(unittest.TestCase):
    """read_plan against stand-ins for nqc: its JSON (the keys nqc has always printed, and the
    estimate it added), and its failures, named by nqc's exit code."""

    def stand_in(self, stdout, stderr="", code=0):
        directory = tempfile.mkdtemp(prefix="nqc-submit-test-")
        self.addCleanup(shutil.rmtree, directory)
        path = os.path.join(directory, "nqc")
        with open(path, "w", encoding="utf-8") as f:
            f.write(
                "#!/bin/sh\n"
                + f'if [ "$1" = info ]; then echo {shlex.quote(json.dumps(NQC_CONSTANTS))}; exit 0; fi\n'
                + f"printf '%s' {shlex.quote(stdout)}\n"
                + f"printf '%s\\n' {shlex.quote(stderr)} >&2\n"
                + f"exit {code}\n"
            )
        os.chmod(path, 0o755)
        return path

    def test_the_json_of_nqc_old_and_new(self):
        old = (
            '{"cases":230,"config":"/c/golden.json","name":"golden","output":"/r/golden","shards":15,"shards_done":0}\n'
        )
        self.assertEqual(submit.read_plan(self.stand_in(old), "/c/golden.json", None), PLAN)
        new = (
            '{"by_n":[{"cases":230,"cpu_seconds":0.5,"n":8,"shards":15}],"cases":230,"config":"/c/golden.json",'
            '"core_hours":0.0001,"cpu_seconds":0.5,"name":"golden","output":"/r/golden","shards":15,"shards_done":0}\n'
        )
        self.assertEqual(submit.read_plan(self.stand_in(new), "/c/golden.json", None), PLAN)

    def test_failures_say_what_failed(self):
        line = "[2026-01-01 00:00:00.000] [rank 0] [error] "
        cases = [
            (1, "c.json: /seeed: unknown key", "invalid config: c.json: /seeed: unknown key"),
            (
                7,
                "/r/golden: cannot write to the results directory: Read-only file system",
                "nqc run --dry-run failed (exit 7, io_error): /r/golden: cannot write to the results directory: "
                "Read-only file system",
            ),
            (
                8,
                "out of memory (the board or the file is too large for this machine)",
                "nqc run --dry-run failed (exit 8, out_of_memory): out of memory (the board or the file is too large "
                "for this machine)",
            ),
        ]
        for code, message, expected in cases:
            with self.assertRaises(submit.Usage) as raised:
                submit.read_plan(self.stand_in("", line + message, code), "/c/golden.json", None)
            self.assertEqual(str(raised.exception), expected)


def record(job_id, state, reason="None", exit_code="0:0", restarts=0, task=None, log=None):
    """One line of `scontrol show job -o` (Slurm 22.05), the fields --wait reads among the others."""
    array = f" ArrayJobId={job_id.split('_')[0]} ArrayTaskId={task}" if task is not None else ""
    own = str(500 + task) if isinstance(task, int) else job_id.split("_")[0]  # a task split off has a JobId of its own
    log = log or f"/r/golden/logs/nqc-golden-{job_id}.out"
    return (
        f"JobId={own} JobName=nqc-golden{array} UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=1 Nice=0 "
        f"Account=(null) QOS=(null) JobState={state} Reason={reason} Dependency=(null) Requeue=1 "
        f"Restarts={restarts} BatchFlag=1 Reboot=0 ExitCode={exit_code} RunTime=00:00:01 TimeLimit=UNLIMITED "
        f"NodeList=localhost BatchHost=localhost NumNodes=1 NumCPUs=2 NumTasks=2 Command=/r/golden/jobs/run.sbatch "
        f"WorkDir=/r/golden StdErr={log} StdIn=/dev/null StdOut={log} Power="
    )


GONE = None  # a poll at which scontrol no longer knows the job ("Invalid job id specified")
#: What `nqc info --constants --json` says (its exit codes, meanings shortened): the stand-in's, read by submit.
NQC_CONSTANTS = {
    "exit_codes": [
        {"code": code, "name": name, "meaning": name.replace("_", " ")}
        for code, name in enumerate(
            "ok bad_input infeasible gave_up interrupted engine_bug rerun_differs io_error out_of_memory".split()
        )
    ],
    "max_board_size": 2147483647,
}
CODES = {c["name"]: c["code"] for c in NQC_CONSTANTS["exit_codes"]}


class Waits(unittest.TestCase):
    """--wait (wait_for) against stand-ins: scontrol answers each job's polls in turn from a list
    (the last answer repeats; GONE: it no longer knows the job), and records its calls; nqc
    prints the JSON of info --constants --json and of run --dry-run --json."""

    def stand_ins(self, polls, finished=True, shards_done=15, accounting=None):
        directory = tempfile.mkdtemp(prefix="nqc-submit-wait-")
        self.addCleanup(shutil.rmtree, directory)
        with open(os.path.join(directory, "polls.json"), "w", encoding="utf-8") as f:
            json.dump(polls, f)
        config = (
            "MinJobAge               = 5 sec\nAccountingStorageType   = "
            + ("accounting_storage/slurmdbd" if accounting else "accounting_storage/none")
            + "\n"
        )
        scontrol = f"""#!{sys.executable}
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "calls"), "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\\n")
if sys.argv[1:3] == ["show", "config"]:
    sys.stdout.write({config!r})
    sys.exit(0)
assert sys.argv[1:4] == ["show", "job", "-o"], sys.argv
job = sys.argv[4]
polls = json.load(open(os.path.join(here, "polls.json")))[job]
counts = os.path.join(here, "count-" + job)
n = int(open(counts).read()) if os.path.exists(counts) else 0
open(counts, "w").write(str(n + 1))
answer = polls[min(n, len(polls) - 1)]
if answer is None:
    print("slurm_load_jobs error: Invalid job id specified")
    sys.exit(1)
print(answer)
"""
        nqc = f"""#!{sys.executable}
import json, sys
if sys.argv[1:] == ["info", "--constants", "--json"]:
    print(json.dumps({NQC_CONSTANTS!r}))
    sys.exit(0)
assert sys.argv[1:] == ["run", "/c/golden.json", "--dry-run", "--json", "-o", "/r/golden"], sys.argv
print(json.dumps({{"config": "/c/golden.json", "name": "golden", "output": "/r/golden", "shards": 15, "cases": 230,
                  "shards_done": {shards_done}, "finished": {finished!r}}}))
"""
        for name, text in (("scontrol", scontrol), ("nqc", nqc)) + ((("sacct", accounting),) if accounting else ()):
            with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(os.path.join(directory, name), 0o755)
        saved = os.environ["PATH"]
        os.environ["PATH"] = directory + os.pathsep + saved
        self.addCleanup(os.environ.__setitem__, "PATH", saved)
        self.directory = directory
        return os.path.join(directory, "nqc")

    def calls(self, job):
        with open(os.path.join(self.directory, "calls"), encoding="utf-8") as f:
            return sum(1 for line in f if line.split() == ["show", "job", "-o", job])

    def wait(self, nqc, jobs, merged=True):
        """wait_for's exit code, stdout and stderr (its polls not slept)."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = submit.wait_for(jobs, nqc, PLAN, merged, sleep=lambda seconds: None)
        return code, out.getvalue(), err.getvalue()

    @staticmethod
    def jobs(*ids):
        return [
            submit.Watched(
                i,
                "aggregation" if i == "102" else "run",
                f"/r/golden/logs/nqc-golden-{'aggregate-' if i == '102' else ''}{i}.out",
            )
            for i in ids
        ]

    def test_completed_and_finished_is_0(self):
        nqc = self.stand_ins(
            {
                "101": [record("101", "PENDING"), record("101", "RUNNING"), record("101", "COMPLETED"), GONE],
                "102": [
                    record("102", "PENDING", "Dependency"),
                    record("102", "PENDING", "Dependency"),
                    record("102", "RUNNING"),
                    record("102", "COMPLETED"),
                ],
            }
        )
        code, out, err = self.wait(nqc, self.jobs("101", "102"))
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(
            out.splitlines(),
            [
                "waiting for jobs 101, 102 to end (scontrol show job every 1 s)...",
                "done: every job completed; /r/golden/results.h5 is complete",
            ],
        )
        self.assertEqual(self.calls("102"), 5, "polled until both ended, then once more")

    def test_failed_run_and_cancelled_aggregation_are_named(self):
        """The user's report: the run job FAILED (exit 53), the aggregation job CANCELLED by Slurm
        without running (DependencyNeverSatisfied); the run job is gone before the end."""
        nqc = self.stand_ins(
            {
                "101": [record("101", "RUNNING"), record("101", "FAILED", "NonZeroExitCode", "53:0"), GONE],
                "102": [
                    record("102", "PENDING", "Dependency"),
                    record("102", "PENDING", "Dependency"),
                    record("102", "PENDING", "Dependency"),
                    record(
                        "102",
                        "CANCELLED",
                        "DependencyNeverSatisfied",
                        log="/r/golden/logs/nqc-golden-aggregate-102.out",
                    ),
                ],
            }
        )
        code, out, err = self.wait(nqc, self.jobs("101", "102"))
        self.assertEqual(code, 1, "exit 53 is not one of nqc's codes: 1")
        self.assertEqual(
            err.splitlines(),
            [
                "submit: job 101 (run): FAILED, exit code 53, reason NonZeroExitCode; log /r/golden/logs/nqc-golden-101.out",
                "submit: job 102 (aggregation): CANCELLED, reason DependencyNeverSatisfied; "
                "log /r/golden/logs/nqc-golden-aggregate-102.out",
            ],
        )
        self.assertNotIn("done", out)

    def test_a_failed_array_task_is_named(self):
        """Array 101 of 3 parts: task 1 fails with nqc's io_error (7), the others complete; the
        pending tasks first show as one record (0-2), then one record each."""
        log = "/r/golden/logs/nqc-golden-101_{}.out"
        pending = record("101", "PENDING", task="0-2", log="/r/golden/logs/nqc-golden-101_4294967294.out")
        running = "\n".join(record(f"101_{t}", "RUNNING", task=t, log=log.format(t)) for t in range(3))
        ended = "\n".join(
            record(
                f"101_{t}",
                *(("FAILED", "NonZeroExitCode", "7:0") if t == 1 else ("COMPLETED",)),
                task=t,
                log=log.format(t),
            )
            for t in range(3)
        )
        nqc = self.stand_ins(
            {
                "101": [pending, running, ended],
                "102": [
                    record("102", "PENDING", "Dependency"),
                    record("102", "PENDING", "Dependency"),
                    record(
                        "102",
                        "CANCELLED",
                        "DependencyNeverSatisfied",
                        log="/r/golden/logs/nqc-golden-aggregate-102.out",
                    ),
                ],
            }
        )
        jobs = [submit.Watched(f"101_{t}", "run", log.format(t)) for t in range(3)] + self.jobs("102")
        code, out, err = self.wait(nqc, jobs)
        self.assertEqual(code, 7, "the failed task's code, nqc's io_error")
        self.assertEqual(
            err.splitlines(),
            [
                "submit: job 101_1 (run): FAILED, exit code 7 (io_error), reason NonZeroExitCode; "
                "log /r/golden/logs/nqc-golden-101_1.out",
                "submit: job 102 (aggregation): CANCELLED, reason DependencyNeverSatisfied; "
                "log /r/golden/logs/nqc-golden-aggregate-102.out",
            ],
        )

    def test_an_array_cancelled_before_it_ran(self):
        """scancel of an array whose tasks were all pending: one record for the three tasks (its
        StdOut is no task's log); each task named with its own log."""
        nqc = self.stand_ins(
            {
                "101": [
                    record("101", "PENDING", task="0-2"),
                    record(
                        "101",
                        "CANCELLED",
                        task="0-2",
                        exit_code="0:15",
                        log="/r/golden/logs/nqc-golden-101_4294967294.out",
                    ),
                ]
            }
        )
        jobs = [submit.Watched(f"101_{t}", "run", f"/r/golden/logs/nqc-golden-101_{t}.out") for t in range(3)]
        code, out, err = self.wait(nqc, jobs)
        self.assertEqual(code, 4)
        self.assertEqual(
            err.splitlines(),
            [
                f"submit: job 101_{t} (run): CANCELLED, signal 15; " f"log /r/golden/logs/nqc-golden-101_{t}.out"
                for t in range(3)
            ],
        )

    def test_completed_but_results_not_finished(self):
        nqc = self.stand_ins(
            {"101": [record("101", "COMPLETED")], "102": [record("102", "COMPLETED")]}, finished=False, shards_done=14
        )
        code, out, err = self.wait(nqc, self.jobs("101", "102"))
        self.assertEqual(code, 1)
        self.assertEqual(
            err.splitlines(),
            [
                "submit: the jobs completed, but /r/golden/results.h5 is not complete: "
                "nqc run --dry-run: 14 of 15 shards done, no results.h5"
            ],
        )
        nqc = self.stand_ins({"101": [record("101", "COMPLETED")]}, finished=False)
        code, out, err = self.wait(nqc, self.jobs("101"), merged=False)
        self.assertEqual(code, 1)
        self.assertEqual(
            err.splitlines(),
            [
                "submit: the jobs completed, but /r/golden/results.h5 is not complete: "
                "nqc run --dry-run: 15 of 15 shards done, no results.h5 (array parts do "
                "not merge: jobs/submit /c/golden.json -o /r/golden --aggregate-only)"
            ],
        )

    def test_a_requeued_job_is_followed_to_its_end(self):
        """The run job requeues itself at its time limit (PENDING again, Restarts=1), and Slurm
        requeues it once more after a node failure, which it shows ended (NODE_FAIL) for one
        poll: followed through both to its end, where it meets its time limit."""
        polls = [
            record("101", "RUNNING"),
            record("101", "REQUEUED", restarts=1),
            record("101", "PENDING", "BeginTime", restarts=1),
            record("101", "RUNNING", restarts=1),
            record("101", "NODE_FAIL", "NodeDown", "0:0", restarts=1),
            record("101", "PENDING", "BeginTime", restarts=2),
            record("101", "RUNNING", restarts=2),
            record("101", "TIMEOUT", "TimeLimit", "0:15", restarts=2),
            GONE,
        ]
        nqc = self.stand_ins({"101": polls})  # --no-aggregate: the run job alone
        code, out, err = self.wait(nqc, self.jobs("101"))
        self.assertEqual(code, 4, "a time limit: nqc's interrupted, a resubmission resumes")
        self.assertEqual(self.calls("101"), 9, "polled through both requeues until it was gone")
        self.assertEqual(
            [line for line in out.splitlines() if "requeued" in line],
            ["job 101 requeued (restart 1): following it", "job 101 requeued (restart 2): following it"],
        )
        self.assertEqual(
            err.splitlines()[0],
            "submit: job 101 (run): TIMEOUT, signal 15, reason TimeLimit, "
            "after 2 requeue(s); log /r/golden/logs/nqc-golden-101.out",
        )
        # The same job completing after its requeue (the aggregation job then runs): exit 0.
        polls[-2:] = [record("101", "COMPLETED", restarts=2)]
        nqc = self.stand_ins(
            {"101": polls, "102": [record("102", "PENDING", "Dependency")] * 8 + [record("102", "COMPLETED")]}
        )
        code, out, err = self.wait(nqc, self.jobs("101", "102"))
        self.assertEqual((code, err), (0, ""))

    def test_a_job_gone_before_its_end_was_seen(self):
        """scontrol forgot the job while it was running (no accounting): its end is unknown, 1;
        with accounting, sacct says how it ended."""
        nqc = self.stand_ins({"101": [record("101", "RUNNING"), GONE]})
        code, out, err = self.wait(nqc, self.jobs("101"))
        self.assertEqual(
            (code, err),
            (
                1,
                "submit: job 101 (run): end unknown: last seen RUNNING, then gone from "
                "scontrol; log /r/golden/logs/nqc-golden-101.out\n",
            ),
        )
        sacct = f"#!{sys.executable}\nimport sys\nassert '101' in sys.argv\nprint('OUT_OF_MEMORY|0:125|None')\n"
        nqc = self.stand_ins({"101": [record("101", "RUNNING"), GONE]}, accounting=sacct)
        code, out, err = self.wait(nqc, self.jobs("101"))
        self.assertEqual(
            (code, err),
            (8, "submit: job 101 (run): OUT_OF_MEMORY, signal 125; " "log /r/golden/logs/nqc-golden-101.out\n"),
        )

    def test_judge(self):
        """Each end as submit's exit code: 0 completed; a run job's nqc code; Slurm's ends as
        nqc's interrupted (4, resubmit to resume) or out_of_memory (8); 1 for the rest."""
        codes = {"bad_input": 1, "interrupted": 4, "engine_bug": 5, "io_error": 7, "out_of_memory": 8}
        cases = [
            ("COMPLETED", "0:0", 0),
            ("FAILED", "5:0", 5),
            ("FAILED", "8:0", 8),
            ("FAILED", "4:0", 4),
            ("FAILED", "53:0", 1),
            ("FAILED", "0:9", 1),
            ("CANCELLED", "0:15", 4),
            ("TIMEOUT", "0:0", 4),
            ("NODE_FAIL", "0:0", 4),
            ("PREEMPTED", "0:0", 4),
            ("BOOT_FAIL", "0:0", 4),
            ("DEADLINE", "0:0", 4),
            ("OUT_OF_MEMORY", "0:125", 8),
            ("RUNNING", "0:0", 1),
            ("", "", 1),
        ]
        for state, exit_code, expected in cases:
            with self.subTest(state=state, exit_code=exit_code):
                job = submit.Watched("9", "run", "/l", state=state, exit_code=exit_code)
                self.assertEqual(submit.judge(job, codes)[0], expected)
        self.assertEqual(
            submit.judge(submit.Watched("9", "run", "/l", "FAILED", exit_code="7:0"), {})[0],
            1,
            "without nqc's table, a failure is 1",
        )

    def test_records_and_task_ids(self):
        self.assertEqual(submit.task_ids("2"), ["2"])
        self.assertEqual(submit.task_ids("0-3"), ["0", "1", "2", "3"])
        self.assertEqual(submit.task_ids("1,3-7:2"), ["1", "3", "5", "7"])
        self.assertEqual(submit.task_ids("0-2%1"), ["0", "1", "2"])
        records = submit.job_records(record("101", "PENDING", task="1-2") + "\n" + record("101_0", "FAILED", task=0))
        self.assertEqual(sorted(records), ["101_0", "101_1", "101_2"])
        self.assertEqual((records["101_0"]["JobState"], records["101_2"]["JobState"]), ("FAILED", "PENDING"))
        self.assertEqual(
            submit.nqc_exit_codes(self.stand_ins({})),
            {
                "ok": 0,
                "bad_input": 1,
                "infeasible": 2,
                "gave_up": 3,
                "interrupted": 4,
                "engine_bug": 5,
                "rerun_differs": 6,
                "io_error": 7,
                "out_of_memory": 8,
            },
        )


if __name__ == "__main__":
    unittest.main()
