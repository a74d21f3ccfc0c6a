//! Prints the sizes of the per-flow structures of `ndncc-core` (bytes), for layout work:
//! `cargo run --release -p ndncc-sim --example sizes`
use std::mem::size_of;
fn main() {
    use ndncc_core::*;
    println!("Packet {}", size_of::<packet::Packet>());
    println!("Interest {}", size_of::<packet::Interest>());
    println!("Data {}", size_of::<packet::Data>());
    println!("Name {}", size_of::<name::Name>());
    println!("Node {}", size_of::<Node>());
    println!("Face {}", size_of::<face::Face>());
    println!("Forwarder {}", size_of::<forwarder::Forwarder>());
    println!("FwCore {}", size_of::<forwarder::FwCore>());
    println!("RouterModule {}", size_of::<schemes::RouterModule>());
    println!("PitEntry {}", size_of::<table::pit::PitEntry>());
    println!("Consumer {}", size_of::<app::Consumer>());
    println!("App {}", size_of::<app::App>());
    println!("AppSlot {}", size_of::<node::AppSlot>());
    println!("Fib {}", size_of::<table::fib::Fib>());
    println!("Pit {}", size_of::<table::pit::Pit>());
    println!("CS {}", size_of::<table::cs::ContentStore>());
    println!("Strategy {}", size_of::<forwarder::Strategy>());
    println!("ConsumerConfig {}", size_of::<app::ConsumerConfig>());
    println!(
        "ConsumerStats {}",
        size_of::<app::consumer::ConsumerStats>()
    );
    println!("Controller {}", size_of::<schemes::registry::Controller>());
    println!("Engine {}", size_of::<pacing::Engine>());
    println!("ClockModel {}", size_of::<pacing::ClockModel>());
    println!(
        "RttEstimator {}",
        size_of::<mechanisms::rtt_estimator::RttEstimator>()
    );
    println!("RngStream {}", size_of::<rng::RngStream>());
    println!("TimerQueue<u64> {}", size_of::<timers::TimerQueue<u64>>());
    println!("Producer {}", size_of::<app::Producer>());
    println!("FaceCounters {}", size_of::<face::FaceCounters>());
    // the controller kinds (the `Controller` enum is as large as the largest)
    use app::controller::{ConstantRate, FixedWindow};
    println!("  ConstantRate {}", size_of::<ConstantRate>());
    println!("  FixedWindow {}", size_of::<FixedWindow>());
    println!("  SfConsumer {}", size_of::<schemes::sf::SfConsumer>());
    println!(
        "  MirccConsumer {}",
        size_of::<schemes::mircc::MirccConsumer>()
    );
    println!("  Icp {}", size_of::<schemes::icp::Icp>());
    println!("  Ric (CHoPCoP) {}", size_of::<schemes::chopcop::Ric>());
    println!("  Ictp {}", size_of::<schemes::ictp::Ictp>());
    println!(
        "  ConsumerPcon {}",
        size_of::<schemes::pcon::ConsumerPcon>()
    );
    println!(
        "  SieveConsumer {}",
        size_of::<schemes::sieve::SieveConsumer>()
    );
}
