#!/usr/bin/env bash
# Repeats the C++ batch-128 all-modes run under the probe; on a crash, runs it under cuda-gdb for a backtrace.
set -u
root=$PWD; O=$OUT/hunt; mkdir -p $O
deps=(-DSYNCLINT_HEADER_DEPS_DIR=$root/.carry/include -DSYNCLINT_NODE_MODULES=$root/.carry/node_modules)
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
(cmake -S bench/gpu/cpp -B build-gpu-train -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$prefix" && ninja -C build-gpu-train train_cpp) >$O/b1.log 2>&1 &
(cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSYNCLINT_BUILD_TESTS=OFF "${deps[@]}" && ninja -C build-gpu synclint synclint_probe) >$O/b2.log 2>&1
wait; echo "built $SECONDS s"
S=$root/build-gpu/tools/synclint/synclint; T=$root/build-gpu-train/train_cpp
lib=$root/build-gpu/runtime_probe/inject/libsynclint_probe.so
args=(--mode all --batch 128 --steps 300 --reps 3 --warmup 50)
for i in 1 2 3 4 5; do
  ((SECONDS < 150)) || break
  timeout 40 $S probe -o $O/r$i.json -- $T "${args[@]}" >$O/r$i.log 2>&1; rc=$?
  echo "plain run $i rc=$rc at $SECONDS s"; [[ $rc != 0 ]] && tail -3 $O/r$i.log
done
for i in 1 2 3 4 5 6; do
  ((SECONDS < 215)) || break
  mkdir -p /tmp/pd$i
  CUDA_INJECTION64_PATH=$lib SYNCLINT_PROBE_DIR=/tmp/pd$i SYNCLINT_PROBE_DEBUG=1 timeout 45 cuda-gdb -q -batch \
    -ex 'set pagination off' -ex run -ex bt -ex 'info threads' -ex 'thread apply all bt 12' --args $T "${args[@]}" >$O/g$i.log 2>&1
  echo "cuda-gdb run $i rc=$? at $SECONDS s: $(grep -c 'SIGSEGV' $O/g$i.log) SIGSEGV lines"
  grep -q SIGSEGV $O/g$i.log && { grep -A40 'SIGSEGV' $O/g$i.log | head -120; break; }
done
tar -czf $OUT/hunt.tgz -C $O . ; rm -rf $O
