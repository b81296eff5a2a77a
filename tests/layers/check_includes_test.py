"""The include checker on small made-up trees: an allowed include passes, a forbidden one,
a generated message below the conversion layer, a folder without a line and a cycle fail."""

import os
import subprocess
import sys
import tempfile
import unittest

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_includes.py")

DEPS = """\
server/math:
server/model: server/math
server/world: server/model
server/scene: server/world proto
clients/cpp: server/math
"""


class CheckIncludesTest(unittest.TestCase):
    def tree(self, files, deps=DEPS):
        root = tempfile.mkdtemp()
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", root], check=True))
        # Every folder DEPS names exists, with an empty header.
        base = {f"{line.split(':')[0]}/empty.h": "" for line in deps.splitlines()}
        files = {**base, **files, "server/DEPS": deps}
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as out:
                out.write(text)
        return root

    def check(self, root):
        run = subprocess.run([sys.executable, CHECKER, root], capture_output=True, text=True)
        return run.returncode, run.stdout + run.stderr

    def test_allowed_includes_pass(self):
        root = self.tree({
            "server/math/vec.h": "#include <vector>\n",
            "server/model/body.h": '#include "server/math/vec.h"\n',
            "server/model/rod/rod.h": '#include "server/model/body.h"\n',
            # transitive: world may include math through model
            "server/world/world.h": '#include "server/math/vec.h"\n#include "absl/status/status.h"\n',
            "server/scene/scene.h": '#include "ligature/v1/scene.pb.h"\n#include "server/world/world.h"\n',
            "clients/cpp/client.h": '#include "server/math/vec.h"\n',
        })
        code, out = self.check(root)
        self.assertEqual(code, 0, out)

    def test_upward_include_fails_naming_the_line(self):
        root = self.tree({
            "server/math/vec.h": "",
            "server/world/world.h": "",
            "server/model/body.h": '#include "server/math/vec.h"\n#include "server/world/world.h"\n',
        })
        code, out = self.check(root)
        self.assertEqual(code, 1)
        self.assertIn("server/model/body.h:2: includes server/world/world.h", out)

    def test_generated_message_below_scene_fails(self):
        root = self.tree({"server/world/world.h": '#include "ligature/v1/scene.pb.h"\n'})
        code, out = self.check(root)
        self.assertEqual(code, 1)
        self.assertIn("server/world may not use proto", out)

    def test_client_reaching_into_server_fails(self):
        root = self.tree({"server/world/world.h": "",
                          "clients/cpp/client.h": '#include "server/world/world.h"\n'})
        code, out = self.check(root)
        self.assertEqual(code, 1)
        self.assertIn("clients/cpp may not include server/world", out)

    def test_subfolder_with_its_own_line_is_not_part_of_its_parent(self):
        deps = DEPS + "server/model/wire: server/model proto\n"
        root = self.tree({"server/model/wire/wire.h": "",
                          "server/world/world.h": '#include "server/model/wire/wire.h"\n'},
                         deps=deps)
        code, out = self.check(root)
        self.assertEqual(code, 1)
        self.assertIn("server/world may not include server/model/wire", out)

    def test_folder_without_a_line_fails(self):
        root = self.tree({"server/extra/thing.h": ""})
        code, out = self.check(root)
        self.assertEqual(code, 1)
        self.assertIn("server/extra/thing.h: its folder has no line", out)

    def test_cycle_in_deps_fails(self):
        root = self.tree({"server/math/vec.h": ""},
                         deps="server/math: server/model\nserver/model: server/math\n")
        code, out = self.check(root)
        self.assertNotEqual(code, 0)
        self.assertIn("cycle", out)


if __name__ == "__main__":
    unittest.main()
