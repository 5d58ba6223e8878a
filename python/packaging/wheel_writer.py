"""A wheel (PEP 427) from a list of files: the .dist-info (METADATA, WHEEL,
entry_points.txt, RECORD with each file's sha256) written last, executable
bits kept (pip restores them: graphprof/bin/*).

    name = write_wheel(directory, Metadata(...), files, tag)
"""

import base64
import hashlib
import os
import stat
import zipfile


class Metadata:
    def __init__(self, name, version, summary, requires_python, console_scripts=None):
        self.name = name
        self.version = version
        self.summary = summary
        self.requires_python = requires_python
        self.console_scripts = console_scripts or {}  # {"name": "module:function"}

    def data_dir(self):
        """Where a wheel's scripts go: <name>-<version>.data/scripts/<script>."""
        return "%s-%s.data" % (self.name, self.version)

    def dist_info(self):
        return "%s-%s.dist-info" % (self.name, self.version)

    def metadata_text(self):
        return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nRequires-Python: %s\n"
                % (self.name, self.version, self.summary, self.requires_python))

    def entry_points_text(self):
        lines = ["[console_scripts]"] + ["%s = %s" % kv for kv in sorted(self.console_scripts.items())]
        return "\n".join(lines) + "\n"

    def wheel_text(self, tag):
        return "Wheel-Version: 1.0\nGenerator: graphprof (python/packaging)\nRoot-Is-Purelib: false\nTag: %s\n" % tag

    def write_dist_info(self, directory, tag):
        """prepare_metadata_for_build_wheel's directory: METADATA, WHEEL and
        the entry points (all of the wheel's .dist-info but RECORD)."""
        path = os.path.join(directory, self.dist_info())
        os.makedirs(path, exist_ok=True)
        for name, text in (("METADATA", self.metadata_text()), ("WHEEL", self.wheel_text(tag)),
                           ("entry_points.txt", self.entry_points_text())):
            with open(os.path.join(path, name), "w") as f:
                f.write(text)
        return self.dist_info()


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(directory, metadata, files, tag, texts=()):
    """files: [(path in the wheel, file on disk)]; texts: [(path, str[, mode])]
    made here (the command's script, an editable install's .pth). Returns the wheel's file name. Written
    to a temporary name and renamed: never a partial wheel."""
    name = "%s-%s-%s.whl" % (metadata.name, metadata.version, tag)
    dist_info = metadata.dist_info()
    generated = [
        (dist_info + "/METADATA", metadata.metadata_text()),
        (dist_info + "/WHEEL", metadata.wheel_text(tag)),
        (dist_info + "/entry_points.txt", metadata.entry_points_text()),
    ]
    final = os.path.join(directory, name)
    partial = final + ".partial"
    record = []
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as z:
            def add(arcname, data, mode):
                info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = (stat.S_IFREG | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)
                record.append("%s,%s,%d" % (arcname, _digest(data), len(data)))
            for arcname, path in files:
                with open(path, "rb") as f:
                    data = f.read()
                executable = os.stat(path).st_mode & stat.S_IXUSR
                add(arcname, data, 0o755 if executable else 0o644)
            for entry in list(texts) + generated:
                arcname, text = entry[0], entry[1]
                add(arcname, text.encode(), entry[2] if len(entry) > 2 else 0o644)
            record.append(dist_info + "/RECORD,,")
            info = zipfile.ZipInfo(dist_info + "/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            z.writestr(info, "\n".join(record) + "\n")
        os.replace(partial, final)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return name
