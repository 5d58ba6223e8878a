"""python_package: an importable Python package directory in bazel-bin.

`PYTHONPATH=bazel-bin/<pkg> python3 -c "import <name>"` needs a directory
bazel-bin/<pkg>/<name>/ holding the package's .py files and its extension
module. The sources live in <pkg>/<name>/ in the source tree, so they cannot
be declared as outputs of the same path one by one (a generated file may not
shadow a source file); one tree artifact named like the package can.
"""

def _python_package_impl(ctx):
    out = ctx.actions.declare_directory(ctx.attr.package)
    srcs = ctx.files.srcs
    extensions = ctx.files.extensions
    commands = ["mkdir -p %s" % out.path]
    for f in srcs:
        commands.append("cp %s %s/%s" % (f.path, out.path, f.basename))
    for f in extensions:
        commands.append("cp %s %s/%s && chmod 755 %s/%s" % (f.path, out.path, f.basename, out.path, f.basename))
    ctx.actions.run_shell(
        inputs = srcs + extensions,
        outputs = [out],
        command = " && ".join(commands),
        mnemonic = "PythonPackage",
        progress_message = "Assembling Python package %s" % ctx.attr.package,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

python_package = rule(
    implementation = _python_package_impl,
    attrs = {
        "package": attr.string(mandatory = True, doc = "the directory name (the import name)"),
        "srcs": attr.label_list(allow_files = [".py"], doc = "the package's modules (flat)"),
        "extensions": attr.label_list(allow_files = [".so"], doc = "extension modules to put beside them"),
    },
)
