// A small stand-in for the LibTorch headers (the names and shapes the analysis looks at), so the unit tests
// parse in milliseconds. The fixtures under fixtures/cpp use the real headers.
#pragma once
namespace std {
template <class E> class initializer_list { const E* b_; unsigned long n_; };
struct ostream {};
extern ostream cout;
ostream& operator<<(ostream&, const char*);
namespace chrono {
struct duration { double count() const; };
struct time_point {};
duration operator-(time_point, time_point);
struct steady_clock { static time_point now(); };
}  // namespace chrono
template <class T> struct vector { T* begin(); T* end(); };
template <class T> struct shared_ptr { T* operator->() const; T& operator*() const; };
}  // namespace std
namespace c10 {
enum class DeviceType { CPU, CUDA };
enum class ScalarType { Float, Bool };
struct Device { Device(DeviceType); Device(const char*); };
struct TensorOptions {
  TensorOptions();
  TensorOptions(Device);
  TensorOptions(DeviceType);
  TensorOptions device(Device) const;
  TensorOptions dtype(ScalarType) const;
  TensorOptions pinned_memory(bool) const;
};
struct Scalar { float toFloat() const; double toDouble() const; };
}  // namespace c10
namespace at {
using c10::Device; using c10::DeviceType; using c10::Scalar; using c10::ScalarType; using c10::TensorOptions;
struct TensorIndex { TensorIndex(const struct Tensor&); };
template <class T> struct ArrayRef { ArrayRef(const T&); ArrayRef(std::initializer_list<T>); };
struct TensorBase {};
struct Tensor : TensorBase {
  Scalar item() const;
  template <class T> T item() const;
  Tensor cpu() const;
  Tensor cuda() const;
  Tensor to(TensorOptions options = {}, bool non_blocking = false, bool copy = false) const;
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor& copy_(const Tensor& src, bool non_blocking = false);
  Tensor max() const; Tensor sum() const; Tensor norm() const; Tensor grad() const; Tensor detach() const;
  Tensor nonzero() const; Tensor masked_select(const Tensor&) const;
  Tensor index(ArrayRef<TensorIndex>) const;
  Tensor& index_put_(ArrayRef<TensorIndex>, const Tensor&);
  Tensor& index_put_(ArrayRef<TensorIndex>, const Scalar&);
  bool is_nonzero() const; bool equal(const Tensor&) const; bool allclose(const Tensor&) const;
  template <class T> T* data_ptr() const;
  Device device() const;
};
Tensor operator+(const Tensor&, const Tensor&);
Tensor operator*(const Tensor&, double);
Tensor operator>(const Tensor&, double);
Tensor zeros(int n, TensorOptions options = {});
Tensor randn(int n, TensorOptions options = {});
Tensor from_blob(void* data, int n, TensorOptions options = {});
Tensor where(const Tensor& c);
Tensor where(const Tensor& c, const Tensor& a, const Tensor& b);
Tensor relu(const Tensor&);
bool equal(const Tensor&, const Tensor&);
void print(const Tensor&, long linesize = 80);
std::ostream& operator<<(std::ostream&, const Tensor&);
}  // namespace at
namespace torch {
using namespace at;
constexpr c10::DeviceType kCUDA = c10::DeviceType::CUDA;
constexpr c10::DeviceType kCPU = c10::DeviceType::CPU;
constexpr c10::ScalarType kFloat = c10::ScalarType::Float;
namespace cuda { bool is_available(); void synchronize(long device = -1); }
namespace nn {
struct Module {
  std::vector<at::Tensor> parameters() const;
  void to(c10::Device, bool non_blocking = false);
};
struct LinearImpl : Module { at::Tensor forward(const at::Tensor&); };
template <class T> struct ModuleHolder {
  T* operator->() const;
  at::Tensor operator()(const at::Tensor&);
};
struct Linear : ModuleHolder<LinearImpl> { Linear(int, int); };
namespace utils { double clip_grad_norm_(std::vector<at::Tensor>, double max_norm, double norm_type = 2.0,
                                          bool error_if_nonfinite = false); }
}  // namespace nn
}  // namespace torch
namespace c10::cuda { struct CUDAStream { void synchronize() const; void query() const; }; void device_synchronize(); }
namespace at::cuda { struct CUDAEvent { void synchronize() const; void record(); }; }
extern "C" int cudaDeviceSynchronize();
extern "C" int cudaMemcpy(void*, const void*, unsigned long, int);
extern "C" int cudaMalloc(void**, unsigned long);
