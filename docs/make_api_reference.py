#!/usr/bin/python3
"""Writes docs/api.md, the API reference, from the comments in proto/ligature/v1/*.proto.

    /usr/bin/python3 docs/make_api_reference.py            # rewrites docs/api.md
    /usr/bin/python3 docs/make_api_reference.py --check    # fails if docs/api.md is stale

protoc (Debian's protobuf-compiler) compiles the .proto files into a descriptor set with
their source information (comments and positions); Debian's python3-protobuf reads it.
Every service, rpc, message, field, enum and enum value is listed with its comment, in the
order of the files."""

import argparse
import difflib
import os
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTO_ROOT = os.path.join(ROOT, "proto")
PROTO_DIR = os.path.join(PROTO_ROOT, "ligature", "v1")
OUTPUT = os.path.join(ROOT, "docs", "api.md")
STALE = "docs/api.md is out of date: run /usr/bin/python3 docs/make_api_reference.py"

# Field numbers inside descriptor.proto, as used in SourceCodeInfo.Location.path.
FILE_MESSAGE, FILE_ENUM, FILE_SERVICE = 4, 5, 6
MESSAGE_FIELD, MESSAGE_NESTED, MESSAGE_ENUM, MESSAGE_ONEOF = 2, 3, 4, 8
ENUM_VALUE = 2
SERVICE_METHOD = 2
SYNTAX_PATH, PACKAGE_PATH = (12,), (2,)

SCALARS = {
    descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE: "double",
    descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT: "float",
    descriptor_pb2.FieldDescriptorProto.TYPE_INT64: "int64",
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT64: "uint64",
    descriptor_pb2.FieldDescriptorProto.TYPE_INT32: "int32",
    descriptor_pb2.FieldDescriptorProto.TYPE_FIXED64: "fixed64",
    descriptor_pb2.FieldDescriptorProto.TYPE_FIXED32: "fixed32",
    descriptor_pb2.FieldDescriptorProto.TYPE_BOOL: "bool",
    descriptor_pb2.FieldDescriptorProto.TYPE_STRING: "string",
    descriptor_pb2.FieldDescriptorProto.TYPE_BYTES: "bytes",
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT32: "uint32",
    descriptor_pb2.FieldDescriptorProto.TYPE_SFIXED32: "sfixed32",
    descriptor_pb2.FieldDescriptorProto.TYPE_SFIXED64: "sfixed64",
    descriptor_pb2.FieldDescriptorProto.TYPE_SINT32: "sint32",
    descriptor_pb2.FieldDescriptorProto.TYPE_SINT64: "sint64",
}


def compile_protos(protoc):
    """The FileDescriptorSet of proto/ligature/v1/*.proto, with source information."""
    protos = sorted(f for f in os.listdir(PROTO_DIR) if f.endswith(".proto"))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "api.pb")
        subprocess.run([protoc, f"--proto_path={PROTO_ROOT}", "--include_source_info",
                        f"--descriptor_set_out={out}"]
                       + [os.path.join(PROTO_DIR, p) for p in protos], check=True)
        with open(out, "rb") as f:
            descriptor_set = descriptor_pb2.FileDescriptorSet.FromString(f.read())
    return descriptor_set


class Comments:
    """The comments of one file, by element path.

    A trailing comment may go on over the next lines, indented to where it started:

        double cut_depth = 2;   // m, > 0: depth a stroke cuts;
                                // default 0.01
        double sharpness = 3;

    protoc takes such continuation lines for the leading comment of the next element; here
    they are given back to the element they continue."""

    def __init__(self, file_proto):
        self.by_path = {tuple(loc.path): loc for loc in file_proto.source_code_info.location}
        with open(os.path.join(PROTO_ROOT, file_proto.name)) as f:
            self.source = f.read().splitlines()

    def continues_previous(self, loc):
        """Whether loc's leading comment is the indented continuation of a trailing one."""
        if not loc.leading_comments:
            return False
        line, column = loc.span[0], loc.span[1]
        count = len(loc.leading_comments.rstrip("\n").split("\n"))
        above = self.source[max(line - count, 0):line]
        indents = [len(text) - len(text.lstrip()) for text in above]
        return bool(above) and all(text.lstrip().startswith("//") for text in above) and \
            min(indents) > column

    def of(self, path):
        """The element's leading comment, then its trailing one, as one paragraph each."""
        path = tuple(path)
        loc = self.by_path.get(path)
        if loc is None:
            return []
        leading = "" if self.continues_previous(loc) else clean(loc.leading_comments)
        trailing = clean(loc.trailing_comments)
        if trailing:
            trailing = " ".join([trailing] + self.continuation(loc))
        return [p for p in (leading, trailing) if p]

    def continuation(self, loc):
        """The indented comment lines that go on from loc's trailing comment."""
        end_line = loc.span[2] if len(loc.span) == 4 else loc.span[0]
        line = end_line + len(loc.trailing_comments.rstrip("\n").split("\n"))
        column = loc.span[1]
        lines = []
        while line < len(self.source):
            text = self.source[line]
            indent = len(text) - len(text.lstrip())
            if not text.lstrip().startswith("//") or indent <= column:
                break
            lines.append(text.lstrip()[2:].strip())
            line += 1
        return [text for text in lines if text]

    def detached(self, path):
        loc = self.by_path.get(tuple(path))
        if loc is None:
            return []
        return [clean(c) for c in loc.leading_detached_comments if clean(c)]


def clean(comment):
    """A comment as Markdown: its lines joined into paragraphs. A line that starts with
    "- " begins a list item, which goes on over the lines indented beyond its dash; a blank
    line, or a line no deeper than the dash after a list, begins a new paragraph."""
    blocks, current, item_indent = [], [], None
    for raw in comment.rstrip().splitlines():
        line = raw.strip()
        indent = len(raw) - len(raw.lstrip())
        item = line.startswith("- ")
        ends_item = item_indent is not None and indent <= item_indent
        if not line or item or ends_item:
            if current:
                blocks.append(" ".join(current))
            current = []
            item_indent = indent if item else None
        if line:
            current.append(line)
    if current:
        blocks.append(" ".join(current))
    text = ""
    for block in blocks:
        if text:
            both_items = block.startswith("- ") and text.rsplit("\n", 1)[-1].startswith("- ")
            text += "\n" if both_items else "\n\n"
        text += block
    return text


def anchor(full_name):
    return full_name.lstrip(".")


def short(full_name, package):
    name = full_name.lstrip(".")
    prefix = package + "."
    return name[len(prefix):] if name.startswith(prefix) else name


def cell(text):
    """Text for one table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


class Writer:
    def __init__(self, descriptor_set):
        self.files = [f for f in descriptor_set.file if f.package == "ligature.v1"]
        self.package = "ligature.v1"
        self.known = set()
        self.maps = {}
        for f in self.files:
            for msg, name in walk_messages(f.message_type, "." + f.package):
                self.known.add(name)
                if msg.options.map_entry:
                    self.maps[name] = msg
                for enum in msg.enum_type:
                    self.known.add(f"{name}.{enum.name}")
            for enum in f.enum_type:
                self.known.add(f".{f.package}.{enum.name}")
        self.lines = []

    def out(self, *lines):
        self.lines.extend(lines)

    def type_link(self, full_name):
        """A message or enum type: a link within this page for our own, plain text else."""
        if full_name in self.known:
            return f"[{short(full_name, self.package)}](#{anchor(full_name)})"
        return f"`{full_name.lstrip('.')}`"

    def field_type(self, field):
        if field.type_name in self.maps:
            entry = self.maps[field.type_name]
            key, value = entry.field[0], entry.field[1]
            return f"map<{self.plain_type(key)}, {self.plain_type(value)}>"
        label = ""
        if field.label == descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED:
            label = "repeated "
        elif field.proto3_optional:
            label = "optional "
        return label + self.plain_type(field)

    def plain_type(self, field):
        if field.type_name:
            return self.type_link(field.type_name)
        return f"`{SCALARS[field.type]}`"

    def write(self):
        self.out("# API reference (ligature.v1)", "",
                 "Generated from the comments in [proto/ligature/v1](../proto/ligature/v1) by "
                 "`/usr/bin/python3 docs/make_api_reference.py`; edit the `.proto` files, not "
                 "this page. Units are SI, quaternions are (x, y, z, w). See "
                 "[concepts](concepts.md) for what the messages describe.", "")
        self.out("## Files", "")
        for f in self.files:
            services = ", ".join(s.name for s in f.service)
            what = f" (services: {services})" if services else ""
            self.out(f"- [{f.name}](#{file_anchor(f.name)}){what}")
        self.out("")
        for f in self.files:
            self.write_file(f)
        while self.lines and not self.lines[-1]:
            self.lines.pop()
        return "\n".join(self.lines) + "\n"

    def write_file(self, f):
        comments = Comments(f)
        self.out(f'<a id="{file_anchor(f.name)}"></a>', "", f"## {f.name}", "")
        intro = comments.detached(PACKAGE_PATH) + comments.of(PACKAGE_PATH)
        for i, message in enumerate(f.message_type):
            if i == 0:
                intro += comments.detached((FILE_MESSAGE, i))
        for text in intro:
            self.out(text, "")
        for i, service in enumerate(f.service):
            self.write_service(service, comments, (FILE_SERVICE, i), f.package)
        for i, message in enumerate(f.message_type):
            self.write_message(message, comments, (FILE_MESSAGE, i), f".{f.package}")
        for i, enum in enumerate(f.enum_type):
            self.write_enum(enum, comments, (FILE_ENUM, i), f".{f.package}")

    def write_service(self, service, comments, path, package):
        full = f"{package}.{service.name}"
        self.out(f'<a id="{full}"></a>', "", f"### service {service.name}", "")
        for text in comments.of(path):
            self.out(text, "")
        for j, method in enumerate(service.method):
            request = self.type_link(method.input_type)
            response = self.type_link(method.output_type)
            if method.client_streaming:
                request = "stream " + request
            if method.server_streaming:
                response = "stream " + response
            self.out(f'<a id="{full}.{method.name}"></a>', "",
                     f"#### {service.name}.{method.name}", "",
                     f"`rpc {method.name}` ({request}) returns ({response})", "")
            for text in comments.of(path + (SERVICE_METHOD, j)):
                self.out(text, "")

    def write_message(self, message, comments, path, scope):
        full = f"{scope}.{message.name}"
        if message.options.map_entry:
            return
        self.out(f'<a id="{anchor(full)}"></a>', "",
                 f"### message {short(full, self.package)}", "")
        for text in comments.of(path):
            self.out(text, "")
        oneofs = {}
        for k, oneof in enumerate(message.oneof_decl):
            members = [fd for fd in message.field
                       if fd.HasField("oneof_index") and fd.oneof_index == k]
            if members and not all(fd.proto3_optional for fd in members):
                oneofs[k] = oneof
        if message.field:
            self.out("| field | type | number | description |", "| --- | --- | --- | --- |")
            for j, field in enumerate(message.field):
                text = " ".join(comments.of(path + (MESSAGE_FIELD, j)))
                if field.HasField("oneof_index") and field.oneof_index in oneofs:
                    k = field.oneof_index
                    oneof_text = " ".join(comments.of(path + (MESSAGE_ONEOF, k)))
                    prefix = f"One of `{oneofs[k].name}`"
                    prefix += f" ({oneof_text})." if oneof_text else "."
                    text = f"{prefix} {text}".strip()
                self.out(f"| `{field.name}` | {self.field_type(field)} | {field.number} | "
                         f"{cell(text)} |")
            self.out("")
        else:
            self.out("No fields.", "")
        for j, nested in enumerate(message.nested_type):
            self.write_message(nested, comments, path + (MESSAGE_NESTED, j), full)
        for j, enum in enumerate(message.enum_type):
            self.write_enum(enum, comments, path + (MESSAGE_ENUM, j), full)

    def write_enum(self, enum, comments, path, scope):
        full = f"{scope}.{enum.name}"
        self.out(f'<a id="{anchor(full)}"></a>', "", f"### enum {short(full, self.package)}", "")
        for text in comments.of(path):
            self.out(text, "")
        self.out("| value | number | description |", "| --- | --- | --- |")
        for j, value in enumerate(enum.value):
            text = " ".join(comments.of(path + (ENUM_VALUE, j)))
            self.out(f"| `{value.name}` | {value.number} | {cell(text)} |")
        self.out("")


def walk_messages(messages, scope):
    for message in messages:
        name = f"{scope}.{message.name}"
        yield message, name
        yield from walk_messages(message.nested_type, name)


def file_anchor(file_name):
    return "file-" + file_name.replace("/", "-").replace(".", "-")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protoc", default="protoc", help="protoc to run (default: on PATH)")
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temporary file and fail if docs/api.md differs")
    parser.add_argument("--output", default=OUTPUT, help="file to write (default docs/api.md)")
    args = parser.parse_args()

    text = Writer(compile_protos(args.protoc)).write()
    if args.check:
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as tmp:
            tmp.write(text)
        try:
            with open(args.output) as f:
                current = f.read()
        except FileNotFoundError:
            current = ""
        if current != text:
            diff = difflib.unified_diff(current.splitlines(), text.splitlines(),
                                        "docs/api.md", "regenerated", lineterm="", n=1)
            print("\n".join(list(diff)[:40]))
            print(STALE, file=sys.stderr)
            os.unlink(tmp.name)
            return 1
        os.unlink(tmp.name)
        print("docs/api.md is current")
        return 0
    with open(args.output, "w") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(args.output, ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
