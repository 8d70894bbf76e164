// Traced stretches: their start and end switch the launch callbacks (and the GPU record kinds, the torch_ops
// shim) on and off. With the GPU model the switch is left to the program's own thread, at its next sync's
// ENTER or, for an end, its next outermost launch's EXIT, where it is inside no launch; without one within
// 100 ms the window thread makes it.
#include <chrono>
#include <cstdio>

#include "probe_state.h"

namespace synclint::probe::inject {

// Turns on or off the callbacks of the tables' entries that are traced-only (`windowed`) or always on.
void switch_callbacks(bool windowed, bool on) {
  Probe& p = *g;
  for (auto [domain, table] : {std::pair{CUPTI_CB_DOMAIN_RUNTIME_API, &p.runtime}, std::pair{CUPTI_CB_DOMAIN_DRIVER_API, &p.driver}})
    for (std::uint32_t cbid = 0; cbid < table->size(); ++cbid)
      if ((*table)[cbid].on && (*table)[cbid].windowed == windowed)
        p.cupti.enable_callback(on ? 1 : 0, p.subscriber, domain, cbid);
}

// The ENTER of a runtime sync or copy, on a thread inside no launch, switches the launch callbacks as the
// stretch's start or end that set_traced left pending asks (whichever thread takes it). With `at_launch`,
// the EXIT of an outermost launch takes a pending switch-off only; its time counts with the syncs'
// (switched_by_sync_ns).
void switch_at_sync(Probe& p, bool at_launch) {
  int on = -1;
  if (at_launch) {  // a switch-off only: a launch's callbacks are off when a stretch is to start
    int off = 0;
    if (!p.switch_pending.compare_exchange_strong(off, -1, std::memory_order_acq_rel)) return;
    on = 0;
  } else {
    on = p.switch_pending.exchange(-1, std::memory_order_acq_rel);
  }
  if (on < 0) return;
  const auto t0 = std::chrono::steady_clock::now();
  switch_callbacks(true, on == 1);
  if (on == 0 && p.records_off_pending.exchange(false, std::memory_order_acq_rel)) {
    switch_record_kinds(p, false);
    p.records_off_by_program.fetch_add(1, std::memory_order_relaxed);
  }
  p.switched_by_sync_ns.fetch_add(static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                      std::chrono::steady_clock::now() - t0).count()),
                                  std::memory_order_relaxed);
  (at_launch ? p.switched_by_launch : p.switched_by_sync).fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard lock(p.switch_mu);
    p.switch_done = true;
  }
  p.switch_cv.notify_all();
}

// Turns the launch callbacks and the GPU activity records on or off at a sampling window boundary.
void set_traced(bool on) {
  Probe& p = *g;
  if (p.traced.load() == on) return;
  std::lock_guard lock(p.cupti_mu);
  if (!on) p.traced.store(false);  // calls from now on are counted, not analysed
  g_epoch.fetch_add(1, std::memory_order_relaxed);
  const bool records_follow = p.activity_ok;  // the record kinds follow the stretches
  // The record kinds go off with the callbacks where the program's thread switches them; left pending when
  // the window thread does (below, then).
  const bool records_to_program = !on && records_follow && p.switch_at_sync;
  if (records_to_program) p.records_off_pending.store(true, std::memory_order_release);
  if (p.switch_at_sync) {
    // The program's next sync or copy switches them; without one in 100 ms, this thread does.
    {
      std::lock_guard done(p.switch_mu);
      p.switch_done = false;
    }
    p.switch_pending.store(on ? 1 : 0, std::memory_order_release);
    std::unique_lock done(p.switch_mu);
    if (!p.switch_cv.wait_for(done, std::chrono::milliseconds(100), [&] { return p.switch_done; }) &&
        p.switch_pending.exchange(-1, std::memory_order_acq_rel) >= 0) {
      switch_callbacks(true, on);
      p.switched_by_window.fetch_add(1, std::memory_order_relaxed);
    } else {
      p.switch_cv.wait(done, [&] { return p.switch_done; });  // taken by a sync: until it is done
    }
  } else {
    switch_callbacks(true, on);
  }
  if (p.torch_ops_enable != nullptr) p.torch_ops_enable(on ? 1 : 0);
  // Still this thread's to switch: not handed to the program's thread, or handed and not taken there.
  const bool records_here = !records_to_program || p.records_off_pending.exchange(false, std::memory_order_acq_rel);
  if (records_follow && records_here) switch_record_kinds(p, on);
  if (!on && p.gpu_model && p.records_live.load()) {  // never on again mid-run: later stretches are modelled
    p.activity_ok = false;
    p.records_live.store(false);
    if (p.debug)
      std::fprintf(stderr, "synclint probe: GPU records end: %llu kinds of GPU work in %llu launches and copies, the last new one %llu ago\n",
                   static_cast<unsigned long long>(p.settling.keys()), static_cast<unsigned long long>(p.settling.calls()),
                   static_cast<unsigned long long>(p.settling.since_new()));
  }
  p.rec->tracing_switched(on, now_ns());
  if (!on) return;
  p.traced.store(true);  // launches and GPU records are on again: calls are analysed
  p.requests.stretch_began();
}

}  // namespace synclint::probe::inject
