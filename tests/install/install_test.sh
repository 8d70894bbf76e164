#!/usr/bin/env bash
# What a user gets from an install: install_test.sh CASE BUILD_DIR SOURCE_DIR PROBE_LIBRARY TORCH_OPS
#   prefix: `cmake --install BUILD_DIR --prefix /usr/local` into a scratch DESTDIR
#   deb:    `cpack -G DEB` into a scratch folder, its packages unpacked with dpkg-deb
# Both check the exact list of files, run the installed synclint (check of Python and of C++, probe --help,
# probe analyze) and ask it where its probe library is. PROBE_LIBRARY, TORCH_OPS and CXX (the C++
# front-end's module) are 1 where the build made them.
set -uo pipefail
case_name=$1 BUILD=$2 SRC=$3 HAVE_PROBE=$4 HAVE_TORCH_OPS=$5 HAVE_CXX=$6
work=$(mktemp -d "${TMPDIR:-/tmp}/synclint-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset SYNCLINT_PROBE_LIBRARY SYNCLINT_CXX_FRONTEND DESTDIR

fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
# files ROOT: every file and link under ROOT, relative, sorted.
files() { (cd "$1" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort); }
expect_files() {  # expect_files ROOT FILE...
  local root=$1; shift
  local want; want=$(printf '%s\n' "$@" | LC_ALL=C sort)
  [[ "$(files "$root")" == "$want" ]] || fail "installed files differ:"$'\n'"$(diff <(echo "$want") <(files "$root"))"
}

# check_program PREFIX: the synclint under PREFIX runs every CUPTI-free command and finds (or explains
# the lack of) the probe library under PREFIX.
check_program() {
  local prefix=$1 exe=$1/bin/synclint out rc
  [[ -x $exe ]] || fail "$exe is not an executable"
  if readelf -d "$exe" "$prefix"/lib/synclint/*.so 2>/dev/null | grep -E 'R(UN)?PATH' | grep -qF "$BUILD"; then
    fail "an installed file keeps a run path into the build tree"
  fi
  out=$("$exe" check "$SRC/examples/cnn_logging/train.py" 2>&1); rc=$?
  [[ $rc -eq 1 ]] || fail "synclint check exited $rc, expected 1 (findings): $out"
  grep -qF "[SYNC001 tensor-item]" <<<"$out" || fail "synclint check found no SYNC001: $out"
  if [[ $HAVE_CXX == 1 ]]; then  # the C++ front-end's module, found under the prefix
    printf 'extern "C" int cudaDeviceSynchronize();\nint main() { for (int i = 0; i < 3; ++i) cudaDeviceSynchronize(); }\n' >"$work/t.cpp"
    out=$("$exe" check "$work/t.cpp" -- 2>&1); rc=$?
    [[ $rc -eq 1 ]] || fail "synclint check of a C++ file exited $rc, expected 1 (findings): $out"
    grep -qF "[SYNC007 explicit-synchronize]" <<<"$out" || fail "synclint check found no SYNC007: $out"
  fi
  out=$("$exe" probe --help 2>&1) || fail "synclint probe --help failed: $out"
  grep -qF -- "--print-library" <<<"$out" || fail "synclint probe --help lacks --print-library: $out"
  out=$("$exe" probe analyze --top 3 "$SRC/runtime_probe/testdata/python-smoke.stream.json" 2>&1) ||
    fail "synclint probe analyze failed: $out"
  grep -qF "replay error:" <<<"$out" || fail "synclint probe analyze printed no replay error: $out"
  out=$("$exe" probe --print-library 2>&1); rc=$?
  if [[ $HAVE_PROBE == 1 ]]; then
    [[ $rc -eq 0 && $out == "$prefix/lib/synclint/libsynclint_probe.so" ]] ||
      fail "synclint probe --print-library: exit $rc, '$out', expected $prefix/lib/synclint/libsynclint_probe.so"
  else
    [[ $rc -eq 2 ]] || fail "synclint probe --print-library without a probe library exited $rc, expected 2"
    grep -qF "install the CUDA toolkit" <<<"$out" || fail "no explanation of the missing library: $out"
    out=$("$exe" probe -o "$work/report.json" -- true 2>&1); rc=$?
    [[ $rc -eq 2 ]] || fail "synclint probe -- true without a probe library exited $rc, expected 2: $out"
    grep -qF "SYNCLINT_CUDA_ROOT" <<<"$out" || fail "synclint probe -- true does not say how to get the library: $out"
  fi
}

expected=(bin/synclint)
[[ $HAVE_CXX == 1 ]] && expected+=(lib/synclint/libsynclint_cxx_frontend.so)
[[ $HAVE_PROBE == 1 ]] && expected+=(lib/synclint/libsynclint_probe.so)
[[ $HAVE_TORCH_OPS == 1 ]] && expected+=(lib/synclint/libsynclint_torch_ops.so)

case $case_name in
  prefix)
    out=$(DESTDIR="$work/root" cmake --install "$BUILD" --prefix /usr/local 2>&1) || fail "cmake --install: $out"
    [[ $(ls -A "$work/root") == usr ]] || fail "cmake --install wrote outside DESTDIR/usr: $(ls -A "$work/root")"
    expect_files "$work/root/usr/local" "${expected[@]}"
    check_program "$work/root/usr/local"
    ;;
  deb)
    out=$(cd "$work" && cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$work/pkg" 2>&1) || fail "cpack: $out"
    version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$BUILD/CPackConfig.cmake")
    debs=("$work"/pkg/*.deb)
    main=$(ls "$work"/pkg/synclint_"$version"_*.deb 2>/dev/null) || fail "no synclint_${version}_*.deb among: ${debs[*]}"
    deps=$(dpkg-deb -f "$main" Depends)
    names=$(tr ',' '\n' <<<"$deps" | sed 's/^ *//; s/ .*//')
    for lib in libc6 libstdc++6; do
      grep -qxF "$lib" <<<"$names" || fail "synclint's Depends lacks $lib: $deps"
    done
    ! grep -qi torch <<<"$deps" || fail "synclint's Depends names LibTorch: $deps"
    [[ $HAVE_CXX == 0 ]] || grep -qx "libclang-cpp.*" <<<"$names" || fail "synclint's Depends lacks libclang-cpp: $deps"
    [[ -n $(dpkg-deb -f "$main" Maintainer) && $(dpkg-deb -f "$main" Section) == devel ]] ||
      fail "synclint's Maintainer or Section is wrong: $(dpkg-deb -f "$main")"
    dpkg-deb -x "$main" "$work/root" || fail "dpkg-deb -x $main"
    main_files=(bin/synclint)
    [[ $HAVE_CXX == 1 ]] && main_files+=(lib/synclint/libsynclint_cxx_frontend.so)
    [[ $HAVE_PROBE == 1 ]] && main_files+=(lib/synclint/libsynclint_probe.so)
    expect_files "$work/root/usr" "${main_files[@]}"
    if [[ $HAVE_TORCH_OPS == 1 ]]; then
      shim=$(ls "$work"/pkg/synclint-torch-ops_"$version"_*.deb 2>/dev/null) || fail "no synclint-torch-ops package"
      deps=$(dpkg-deb -f "$shim" Depends)
      grep -qF "synclint (= $version)" <<<"$deps" || fail "synclint-torch-ops does not depend on synclint: $deps"
      grep -qi torch <<<"$deps" || fail "synclint-torch-ops does not depend on LibTorch: $deps"
      dpkg-deb -x "$shim" "$work/root" || fail "dpkg-deb -x $shim"
    fi
    [[ ${#debs[@]} -eq $((1 + HAVE_TORCH_OPS)) ]] || fail "unexpected packages: ${debs[*]}"
    expect_files "$work/root/usr" "${expected[@]}"
    check_program "$work/root/usr"
    ;;
  *) fail "unknown case" ;;
esac
