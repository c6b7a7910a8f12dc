// Pinocchio's RNEA, ABA or RNEA derivatives timed from C++: one model read from standard input,
// the mean time of one call over a loop of calls on the states given, the best of several loops
// (see robohw.robots.pinocchio.cpp_call_seconds, which writes the input and reads the output).
//
// Input (whitespace-separated numbers): the algorithm (0 rnea, 1 aba, 2 computeRNEADerivatives);
// n gx gy gz; per joint: kind (0 revolute about z,
// 1 prismatic along z), the joint's placement in its parent (R row-major, 9; p, 3), has_body,
// and if 1: mass, centre of mass (3), rotational inertia at it (row-major, 9); then states,
// repeats; then states rows of q (n), qd (n) and qdd (n, rnea and its derivatives) or tau (n,
// aba).
// Output: one line "seconds_per_call out_1 ... out_n" (tau or qdd of the first state; for the
// derivatives, the first row of dtau/dq).
#include <chrono>
#include <iostream>
#include <vector>

#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/multibody.hpp>

int main() {
  using namespace pinocchio;
  int algorithm, n;
  double gx, gy, gz;
  std::cin >> algorithm >> n >> gx >> gy >> gz;
  Model model;
  model.gravity = Motion(Eigen::Vector3d(gx, gy, gz), Eigen::Vector3d::Zero());
  JointIndex parent = 0;
  for (int k = 0; k < n; ++k) {
    int kind, body;
    Eigen::Matrix3d rotation;
    Eigen::Vector3d origin;
    std::cin >> kind;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) std::cin >> rotation(r, c);
    for (int r = 0; r < 3; ++r) std::cin >> origin(r);
    SE3 placement(rotation, origin);
    std::string name = "joint" + std::to_string(k + 1);
    parent = kind == 0 ? model.addJoint(parent, JointModelRZ(), placement, name)
                       : model.addJoint(parent, JointModelPZ(), placement, name);
    std::cin >> body;
    if (body) {
      double mass;
      Eigen::Vector3d com;
      Eigen::Matrix3d tensor;
      std::cin >> mass;
      for (int r = 0; r < 3; ++r) std::cin >> com(r);
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) std::cin >> tensor(r, c);
      model.appendBodyToJoint(parent, Inertia(mass, com, tensor), SE3::Identity());
    }
  }
  int states, repeats;
  std::cin >> states >> repeats;
  std::vector<Eigen::VectorXd> q(states, Eigen::VectorXd(n)), qd = q, third = q;
  for (int s = 0; s < states; ++s) {
    for (int k = 0; k < n; ++k) std::cin >> q[s](k);
    for (int k = 0; k < n; ++k) std::cin >> qd[s](k);
    for (int k = 0; k < n; ++k) std::cin >> third[s](k);
  }
  if (!std::cin || algorithm < 0 || algorithm > 2) {
    std::cerr << "pinocchio_timing: the input ended early or names no algorithm\n";
    return 2;
  }
  Data data(model);
  // One call on state s, and a number of its result for the checksum (so that no call is
  // optimized away).
  auto call = [&](int s) -> double {
    if (algorithm == 0) return rnea(model, data, q[s], qd[s], third[s])(0);
    if (algorithm == 1) return aba(model, data, q[s], qd[s], third[s])(0);
    computeRNEADerivatives(model, data, q[s], qd[s], third[s]);
    return data.dtau_dq(0, n - 1);
  };
  double best = 1e300, sink = 0.0;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int s = 0; s < states; ++s) sink += call(s);
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / states);
  }
  call(0);
  Eigen::VectorXd out = algorithm == 0   ? Eigen::VectorXd(data.tau)
                        : algorithm == 1 ? Eigen::VectorXd(data.ddq)
                                         : Eigen::VectorXd(data.dtau_dq.row(0).transpose());
  std::cout.precision(17);
  std::cout << best;
  for (int k = 0; k < n; ++k) std::cout << ' ' << out(k);
  std::cout << '\n';
  std::cerr << "checksum " << sink << '\n';
  return 0;
}
