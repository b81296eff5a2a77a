"""`ligatured --help` lists the server's own flags, each with its default."""

import os
import subprocess
import unittest


class HelpTest(unittest.TestCase):
    def setUp(self):
        self.binary = os.environ.get("LIGATURED")
        if not self.binary or not os.access(self.binary, os.X_OK):
            self.fail(f"LIGATURED must name the ligatured binary (got {self.binary!r})")

    def help_text(self, flag):
        done = subprocess.run([self.binary, flag], capture_output=True, text=True, timeout=30)
        # Abseil ends a help request with exit code 1; a crash would be a signal (< 0).
        self.assertIn(done.returncode, (0, 1), done.stderr)
        return done.stdout + done.stderr

    def test_help_lists_flags_with_defaults(self):
        text = self.help_text("--help")
        self.assertNotIn("No flags matched", text)
        # Each flag's entry runs up to its default; descriptions wrap over lines.
        flat = " ".join(text.split())
        for flag, default in [("--listen", '"127.0.0.1:50051"'), ("--max_worlds", "64"),
                              ("--token_file", '""'), ("--tls_cert", '""'),
                              ("--tls_client_ca", '""'), ("--allow_insecure", "false"),
                              ("--snapshot_interval_s", "60")]:
            start = flat.find(flag + " (")
            self.assertGreaterEqual(start, 0, f"{flag} missing from --help:\n{text}")
            entry = flat[start:flat.find(";", flat.find("default:", start)) + 1]
            self.assertIn(f"default: {default};", entry, f"{flag}: {entry}")
        # Only the server's flags: the libraries' flags are for --helpfull.
        self.assertNotIn("--flagfile", text)

    def test_helpshort_matches_help(self):
        self.assertEqual(self.help_text("--helpshort"), self.help_text("--help"))


if __name__ == "__main__":
    unittest.main()
