use warpjit::exec::step::WarpStepper;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let t = warpjit::tracefile::load(args[1].as_ref()).unwrap();
    let launch = t.launch(&t.launches[0]);
    let warp: u32 = args[2].parse().unwrap();
    let mut s = WarpStepper::new(&t.machine, &launch, [0, 0, 0], warp).unwrap();
    let watch: Vec<u32> = args[3..]
        .iter()
        .map(|a| u32::from_str_radix(a.trim_start_matches("0x"), 16).unwrap())
        .collect();
    let mut n = 0;
    while n < 3000 {
        let pc = s.next_pc();
        if let Some(pc) = pc {
            if watch.contains(&pc) {
                let regs: Vec<String> =
                    (0..20).map(|r| format!("R{r}={:x}", s.reg(0, r))).collect();
                let cc = s.cc(0);
                println!(
                    "pc {pc:#x}: {} P0={} cc={:?}",
                    regs.join(" "),
                    s.pred(0, 0),
                    cc
                );
            }
        }
        match s.step() {
            Ok(warpjit::exec::step::Step::Exited) => break,
            Ok(_) => {}
            Err(e) => {
                println!("{e}");
                break;
            }
        }
        n += 1;
    }
}
