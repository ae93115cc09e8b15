//! The global device survives `fork()`: the child sees a new pid and starts its own engines
//! (the parent's threads do not exist in the child). Alone in its test binary so no other test
//! thread holds a lock at the moment of the fork.
use hyperz_device::{Device, Job, Priority};

fn queued_job(dev: &Device) -> Vec<u8> {
    let big: Vec<u8> = (0..200_000u32).map(|i| (i % 7) as u8).collect();
    let h = dev.submit(
        Job::custom(1 << 20, move || big.iter().rev().take(5).copied().collect()),
        Priority::Normal,
    );
    h.wait().unwrap().data
}

#[test]
fn global_device_works_in_a_forked_child() {
    let dev = Device::global();
    assert_eq!(queued_job(dev), vec![2, 1, 0, 6, 5]);
    assert!(dev.started_engines() > 0);
    // SAFETY: fork in a test binary whose only test is this one; the child runs our code and
    // leaves with _exit, never returning into the harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let ok = dev.started_engines() == 0
            && queued_job(dev) == vec![2, 1, 0, 6, 5]
            && dev.started_engines() > 0;
        // SAFETY: _exit ends the child immediately without running the parent's atexit state.
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    let mut status = 0;
    // SAFETY: waiting for the child we just created, with a valid pointer to `status`.
    let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(rc, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "child failed: {status}"
    );
    // The parent's engines still work.
    assert_eq!(queued_job(dev), vec![2, 1, 0, 6, 5]);
}
