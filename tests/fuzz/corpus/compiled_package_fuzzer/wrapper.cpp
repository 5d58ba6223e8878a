
extern "C" {
AOTIRuntimeError AOTInductorModelContainerRun(
    AOTInductorModelContainerHandle container_handle) {
}
} // extern "C"
#include <ATen/record_function.h>
extern "C"  void cpp_fused_convolution_0(const float* in_ptr0,
                       float* out_ptr2)
{
    RECORD_FUNCTION("graph_0_cpp_fused_convolution_0", c10::ArrayRef<c10::IValue>({}));
}
extern "C"  void cpp_fused_relu_1(float* in_out_ptr0)
{
    RECORD_FUNCTION("graph_0_cpp_fused_relu_1", c10::ArrayRef<c10::IValue>({}));
}
void AOTInductorModel::run_impl(
    AtenTensorHandle*
        input_handles, // array of input AtenTensorHandle; handles
    AOTIProxyExecutorHandle proxy_executor
) {
    auto inputs = steal_from_raw_handles_to_raii_handles(input_handles, 1);
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(4, int_array_2, int_array_3, cached_torch_dtype_float32, cached_torch_device_type_cpu, this->device_idx_, &buf0_handle));
    cpp_fused_convolution_0((const float*)(arg10_1.data_ptr()), (float*)(buf2.data_ptr()));
    // Topologically Sorted Source Nodes: [conv2d], Original ATen: [aten.convolution]
    AtenTensorHandle var_0 = buf2.get();
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_convolution(buf0, buf1, &var_0, var_array_0, 2, 1L, &buf3_handle));
    cpp_fused_relu_1((float*)(buf3.data_ptr()));
    // Topologically Sorted Source Nodes: [relu, linear], Original ATen: [aten.relu, aten.addmm]
    auto tmp_tensor_handle_0 = reinterpret_tensor_wrapper(fc_weight, 2, int_array_0, int_array_1, 0L);
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf7, buf6, buf5, tmp_tensor_handle_0_raii, 1L, 1L));
    cpp_fused_relu_1((float*)(buf7.data_ptr()));
    output_handles[0] = buf7.release();
} // AOTInductorModel::run_impl
} // namespace torch::aot_inductor
