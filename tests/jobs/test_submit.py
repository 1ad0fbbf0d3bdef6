"""jobs/submit's pieces without a cluster or nqc: Slurm times, options, the job specifications
and their #SBATCH directive lists (as ReFrame tests its Slurm backend: lists, not files), the
aggregation job's time limit, the option table against jobs/README.md, and the plan read from
stand-ins for `nqc run --dry-run --json` (its JSON, old and new; its failures by exit code).

  /usr/bin/python3 tests/jobs/test_submit.py [-v]
"""

import importlib.machinery
import importlib.util
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
        for text in ["0", "00", "0:00", "00:00:00", "0-0", "0-00:00", "0-00:00:00", "UNLIMITED", "unlimited",
                     "INFINITE", "Infinite"]:
            with self.subTest(text=text):
                self.assertEqual(submit.time_seconds(text), submit.NO_LIMIT)
        self.assertEqual(submit.NO_LIMIT, float("inf"))

    def test_malformed(self):
        for text in ["", "abc", "1h", "01:00:00x", "-1:00:00", "1-2-03:00:00", "00:60:00", "1:60", "1-24",
                     "1-123:00", "1-00:60", "1:00:00:00", ":30", "1-", " 10", "UNLIMITEDX", "INFINITY", "NONE",
                     "-1", "1.5"]:
            with self.subTest(text=text):
                self.assertIsNone(submit.time_seconds(text))

    def test_messages(self):
        with self.assertRaisesRegex(submit.Usage, r"^--time: expected a time limit as sbatch takes it \(MM, MM:SS, "
                                    r"HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or 0, UNLIMITED or INFINITE for no "
                                    r"limit\), got '1h'$"):
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
        self.assertEqual((opts["ntasks"], opts["array"], opts["grace"], opts["max_requeues"], opts["launcher"]),
                         (1, 1, 120, 20, "auto"))
        self.assertEqual((opts["aggregate"], opts["aggregate_only"], opts["wait"], opts["dry_run"]),
                         (True, False, False, False))
        self.assertEqual((opts["sbatch"], opts["setup"], opts["time"], opts["nodes"]), ([], [], None, None))

    def test_inline_values_equal_separate_ones(self):
        a = options("--ntasks", "2", "--time", "1-0", "--sbatch", "--mem=1G", "--setup", "module load x")
        b = options("--ntasks=2", "--time=1-0", "--sbatch=--mem=1G", "--setup=module load x")
        for key in ("ntasks", "time", "sbatch", "setup"):
            self.assertEqual(a[key], b[key])

    def test_setup_lines_and_files_keep_their_order(self):
        opts = options("--setup", "a", "--setup-file", "/f", "--setup", "b")
        self.assertEqual(opts["setup"], [("line", "a"), ("file", "/f"), ("line", "b")])

    def test_errors(self):
        cases = [
            (["--ntasks"], "option --ntasks needs a value (see jobs/submit --help)"),
            (["--ntasks="], "option --ntasks needs a value (see jobs/submit --help)"),
            (["--wait=1"], "option --wait takes no value"),
            (["--nodse", "2"], "unknown option '--nodse' (see jobs/submit --help)"),
            (["other.json"], "one CONFIG only (got '/c/golden.json' and 'other.json')"),
            (["--ntasks", "0"], "--ntasks: expected a positive integer, got '0'"),
            (["--array", "-2"], "--array: expected a positive number of parts, got '-2'"),
            (["--grace", "70000"], "--grace: expected seconds in 1..65535, got '70000'"),
            (["--launcher", "aprun"], "--launcher: expected auto, srun or mpirun, got 'aprun'"),
            (["--sbatch", "--mem 1G"], "--sbatch: expected one sbatch option without spaces or quotes, "
                                       "e.g. --sbatch=--mem-per-cpu=2G, got '--mem 1G'"),
            (["--after", "5"], "--after goes with --aggregate-only"),
            (["--aggregate-only", "--no-aggregate"], "--aggregate-only and --no-aggregate exclude each other"),
            (["--aggregate-only", "--array", "2"], "--array goes with a run job, not with --aggregate-only"),
            (["--write", "d"], "--write goes with --print (or --dry-run)"),
            (["--aggregate-time", "1x"], "--aggregate-time: expected a time limit as sbatch takes it (MM, MM:SS, "
                                         "HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or 0, UNLIMITED or INFINITE for "
                                         "no limit), got '1x'"),
            # "-" is standard output or input, as for nqc; a directory or a config cannot be one.
            (["-o", "-"], "-o: '-' (standard output) cannot be a results directory; give a directory"),
            (["--output=-"], "--output: '-' (standard output) cannot be a results directory; give a directory"),
            (["--print", "--write", "-"], "--write: '-' (standard output) cannot be a directory (--print without "
                                          "--write prints the scripts); give a directory"),
            (["--setup-file", "-", "--setup-file", "-"],
             "--setup-file: '-' (standard input) given twice; standard input holds one file"),
        ]
        for argv, message in cases:
            with self.subTest(argv=argv):
                with self.assertRaises(submit.Usage) as raised:
                    options(*argv)
                self.assertEqual(str(raised.exception), message)
        with self.assertRaises(submit.Usage) as raised:
            submit.check_combinations(submit.parse_args([]))
        self.assertEqual(str(raised.exception),
                         "a CONFIG file is required (usage: jobs/submit CONFIG [options]; see --help)")
        with self.assertRaises(submit.Usage) as raised:
            submit.check_combinations(submit.parse_args(["-"]))
        self.assertEqual(str(raised.exception),
                         "CONFIG: '-' (standard input) cannot be a config: nqc and the jobs read it by name; give a file")

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
        documented = {name for row in rows for span in re.findall(r"`([^`]*)`", row.split("|")[1])
                      for name in re.findall(r"(?<![\w-])--?[a-z][a-z-]*", span)}
        declared = {name for option in submit.OPTIONS for name in option.names}
        self.assertEqual(documented, declared, "jobs/README.md's option table and jobs/submit's OPTIONS differ")
        for option in submit.OPTIONS:
            if isinstance(option.default, (int, str)) and not isinstance(option.default, bool):
                row = next(r for r in rows if option.names[-1] in r.split("|")[1])
                self.assertIn(f"default {option.default}", row.replace("`", ""), row)


class Directives(unittest.TestCase):
    def test_run_job_defaults(self):
        self.assertEqual(submit.directives(submit.run_job(options(), PLAN)), [
            "#SBATCH --job-name=nqc-golden",
            "#SBATCH --ntasks=1",
            "#SBATCH --output=/r/golden/logs/%x-%j.out",
            "#SBATCH --open-mode=append",
            "#SBATCH --signal=B:USR1@120",
            "#SBATCH --requeue",
            "#SBATCH --comment=nqc-run:/r/golden",
            "#SBATCH --chdir=/r/golden",
        ])

    def test_aggregation_job_defaults(self):
        self.assertEqual(submit.directives(submit.aggregate_job(options(), PLAN)), [
            "#SBATCH --job-name=nqc-golden-aggregate",
            "#SBATCH --ntasks=1",
            "#SBATCH --output=/r/golden/logs/%x-%j.out",
            "#SBATCH --comment=nqc-aggregate:/r/golden",
            "#SBATCH --time=00:30:00",
            "#SBATCH --chdir=/r/golden",
        ])

    def test_every_option(self):
        opts = options("--nodes", "1", "--ntasks", "2", "--time", "1-0", "--partition", "debug", "--account",
                       "proj", "--array", "3", "--grace", "300", "--launcher", "srun", "--job-name", "study",
                       "--sbatch=--mem-per-cpu=1G", "--sbatch=--constraint=x86")
        self.assertEqual(submit.directives(submit.run_job(opts, PLAN)), [
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
        ])
        self.assertEqual(submit.directives(submit.aggregate_job(opts, PLAN)), [
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
        ])

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
        self.assertEqual(submit.run_parameters(opts, PLAN, "/b/nqc"),
                         {"NQC": "/b/nqc", "CONFIG": "/c/golden.json", "OUT": "/r/golden", "PARTS": 3,
                          "MAX_REQUEUES": 5, "LAUNCHER": "mpirun", "GRACE": 30})
        self.assertEqual(submit.aggregate_parameters(PLAN, "/b/nqc", "/v/bin/python"),
                         {"NQC": "/b/nqc", "CONFIG": "/c/golden.json", "OUT": "/r/golden", "REPO": REPO,
                          "PYTHON": "/v/bin/python"})


class Scripts(unittest.TestCase):
    def test_layout(self):
        """Shebang, directives, parameters, set-up lines, then the static templates verbatim."""
        text = submit.run_script(options(), PLAN, "/b/nqc", ["module load openmpi", "source /v/bin/activate"])
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
        self.assertNotIn("module load", submit.run_script(options(), PLAN, "/b/nqc", []))

    def test_parameters_are_shell_quoted(self):
        plan = submit.Plan(config="/c/it's.json", name="x", output="/r/x", shards=1, cases=1)
        text = submit.aggregate_script(options(), plan, "/b/nqc", "/opt/py 3/python", [])
        self.assertIn("CONFIG='/c/it'\"'\"'s.json'", text)
        self.assertIn("PYTHON='/opt/py 3/python'", text)

    def test_setup_lines_must_parse(self):
        with self.assertRaisesRegex(submit.Usage, r"^--setup, --setup-file: the set-up lines are not valid bash: "
                                                  r"line 1: unexpected EOF while looking for matching `''"):
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
            self.assertEqual(submit.setup_lines([("line", "first"), ("file", "-"), ("line", "last")]),
                             ["first", "module load a", "export X=1", "last"])
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
            f.write("#!/bin/sh\n" + f"printf '%s' {shlex.quote(stdout)}\n" + f"printf '%s\\n' {shlex.quote(stderr)} >&2\n" +
                    f"exit {code}\n")
        os.chmod(path, 0o755)
        return path

    def test_the_json_of_nqc_old_and_new(self):
        old = '{"cases":230,"config":"/c/golden.json","name":"golden","output":"/r/golden","shards":15,"shards_done":0}\n'
        self.assertEqual(submit.read_plan(self.stand_in(old), "/c/golden.json", None), PLAN)
        new = ('{"by_n":[{"cases":230,"cpu_seconds":0.5,"n":8,"shards":15}],"cases":230,"config":"/c/golden.json",'
               '"core_hours":0.0001,"cpu_seconds":0.5,"name":"golden","output":"/r/golden","shards":15,"shards_done":0}\n')
        self.assertEqual(submit.read_plan(self.stand_in(new), "/c/golden.json", None), PLAN)

    def test_failures_say_what_failed(self):
        line = "[2026-01-01 00:00:00.000] [rank 0] [error] "
        cases = [(1, "c.json: /seeed: unknown key", "invalid config: c.json: /seeed: unknown key"),
                 (7, "/r/golden: cannot write to the results directory: Read-only file system",
                  "nqc run --dry-run failed (exit 7, io_error): /r/golden: cannot write to the results directory: "
                  "Read-only file system"),
                 (8, "out of memory (the board or the file is too large for this machine)",
                  "nqc run --dry-run failed (exit 8, out_of_memory): out of memory (the board or the file is too large "
                  "for this machine)")]
        for code, message, expected in cases:
            with self.assertRaises(submit.Usage) as raised:
                submit.read_plan(self.stand_in("", line + message, code), "/c/golden.json", None)
            self.assertEqual(str(raised.exception), expected)


if __name__ == "__main__":
    unittest.main()
